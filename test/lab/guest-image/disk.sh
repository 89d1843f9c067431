# The guest's disk: GPT with a BIOS boot partition (GRUB's core for SeaBIOS), an EFI system
# partition (a standalone GRUB for OVMF) and the ext4 root, all assembled from files: no loop
# device, no mount, no partition device nodes. Sourced by build.sh.

SECTOR=512
BIOS_BOOT_START=2048 # 1 MiB
BIOS_BOOT_SECTORS=2048
ESP_START=4096
ESP_MIB=16
ROOT_START=$((ESP_START + ESP_MIB * 2048))
ROOT_SLACK_MIB=384 # room for logs, Squid's cache and cloud-init's state on top of the files

kernel_version() {
  local kernels=("$ROOT"/boot/vmlinuz-*)
  ((${#kernels[@]} == 1)) && [[ -f ${kernels[0]} ]] || die "expected one kernel in $ROOT/boot, found ${kernels[*]}"
  basename "${kernels[0]}" | sed 's/^vmlinuz-//'
}

# One GRUB menu for both firmwares, on the root file system: boot at once, console on the serial port.
write_grub_config() {
  local version
  version=$(kernel_version)
  install -d "$ROOT/boot/grub"
  cat >"$ROOT/boot/grub/grub.cfg" <<EOF
serial --unit=0 --speed=115200
terminal_input serial
terminal_output serial
set timeout=0
menuentry 'Debian (kvm2 lab guest)' {
  linux /boot/vmlinuz-$version root=LABEL=$GUEST_ROOT_LABEL ro console=ttyS0,115200n8 net.ifnames=1
  initrd /boot/initrd.img-$version
}
EOF
  # Loads the menu above from the root file system, whichever disk number the firmware gave it.
  cat >"$WORK/grub-early.cfg" <<EOF
search --no-floppy --label $GUEST_ROOT_LABEL --set=root
set prefix=(\$root)/boot/grub
EOF
  # BIOS: normal.mod and friends are read from the root file system.
  install -d "$ROOT/boot/grub/i386-pc"
  cp /usr/lib/grub/i386-pc/*.mod /usr/lib/grub/i386-pc/*.lst "$ROOT/boot/grub/i386-pc/"
}

make_root_fs() {
  local used_kib
  used_kib=$(du -sk --apparent-size "$ROOT" | cut -f1)
  ROOT_MIB=$((used_kib * 5 / 4 / 1024 + ROOT_SLACK_MIB))
  rm -f "$WORK/root.ext4"
  truncate -s "${ROOT_MIB}M" "$WORK/root.ext4"
  mkfs.ext4 -q -F -b 4096 -L "$GUEST_ROOT_LABEL" -d "$ROOT" -m 0 -E root_owner=0:0 "$WORK/root.ext4" ||
    die "mkfs.ext4 -d failed"
}

make_esp() {
  local grub_modules="part_gpt part_msdos ext2 fat search search_label configfile normal linux echo test serial terminal"
  grub-mkstandalone -O x86_64-efi --modules="part_gpt ext2 search search_label configfile" \
    --install-modules="$grub_modules" --fonts= --locales= --themes= \
    -o "$WORK/BOOTX64.EFI" "boot/grub/grub.cfg=$WORK/grub-esp.cfg"
  rm -f "$WORK/esp.fat"
  mkfs.fat -F 16 -n ESP -C "$WORK/esp.fat" $((ESP_MIB * 1024)) >/dev/null
  MTOOLS_SKIP_CHECK=1 mmd -i "$WORK/esp.fat" ::/EFI ::/EFI/BOOT
  MTOOLS_SKIP_CHECK=1 mcopy -i "$WORK/esp.fat" "$WORK/BOOTX64.EFI" ::/EFI/BOOT/BOOTX64.EFI
}

make_bios_core() {
  grub-mkimage -O i386-pc -o "$WORK/core.img" -c "$WORK/grub-early.cfg" -p /boot/grub \
    biosdisk part_gpt ext2 search search_label
  local size
  size=$(stat -c %s "$WORK/core.img")
  ((size <= BIOS_BOOT_SECTORS * SECTOR)) || die "GRUB's core.img ($size bytes) does not fit the BIOS boot partition"
}

# What grub-bios-setup does for a GPT disk, done on the file: boot.img into the MBR (keeping the
# protective partition table), core.img into the BIOS boot partition, and the sector numbers that
# chain them (boot.img -> core.img's first sector -> the blocklist of the rest).
embed_bios_boot() {
  python3 - "$1" /usr/lib/grub/i386-pc/boot.img "$WORK/core.img" "$BIOS_BOOT_START" <<'EOF'
import struct, sys
disk_path, boot_path, core_path, start = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
boot = bytearray(open(boot_path, 'rb').read())
core = bytearray(open(core_path, 'rb').read())
core += bytes(-len(core) % 512)
sectors = len(core) // 512
struct.pack_into('<Q', boot, 0x5C, start)     # GRUB_BOOT_MACHINE_KERNEL_SECTOR
boot[0x64] = 0xFF                             # boot drive: the one the BIOS passes in DL
boot[0x66:0x68] = b'\x90\x90'                 # hard disk: skip the floppy drive check
blocklist = 512 - 12                          # diskboot.img's first blocklist entry
old_start, length, segment = struct.unpack_from('<QHH', core, blocklist)
if length != sectors - 1 or segment != 0x820:
    sys.exit(f'unexpected diskboot blocklist: start={old_start} len={length} seg={segment:#x}, {sectors} sectors')
struct.pack_into('<Q', core, blocklist, start + 1)
with open(disk_path, 'r+b') as disk:
    mbr = bytearray(disk.read(512))
    mbr[0:0x1B8] = boot[0:0x1B8]              # code only: the partition table stays
    disk.seek(0); disk.write(mbr)
    disk.seek(start * 512); disk.write(core)
EOF
}

assemble_disk() {
  local raw=$WORK/disk.raw root_sectors total_sectors
  root_sectors=$((ROOT_MIB * 2048))
  total_sectors=$((ROOT_START + root_sectors + 2048)) # + room for the backup GPT
  rm -f "$raw"
  truncate -s $((total_sectors * SECTOR)) "$raw"
  sfdisk -q --no-reread --no-tell-kernel "$raw" >/dev/null <<EOF
label: gpt
start=$BIOS_BOOT_START, size=$BIOS_BOOT_SECTORS, type=21686148-6449-6E6F-744E-656564454649, name=bios
start=$ESP_START, size=$((ESP_MIB * 2048)), type=C12A7328-F81F-11D2-BA4B-00A0C93EC93B, name=esp
start=$ROOT_START, size=$root_sectors, type=4F68BCE3-E8CD-4DB1-96E7-FBCAF984B709, name=root
EOF
  dd if="$WORK/esp.fat" of="$raw" bs=1M seek=$((ESP_START / 2048)) conv=notrunc,sparse status=none
  dd if="$WORK/root.ext4" of="$raw" bs=1M seek=$((ROOT_START / 2048)) conv=notrunc,sparse status=none
  embed_bios_boot "$raw"
  qemu-img convert -q -f raw -O qcow2 "$raw" "$WORK/guest.qcow2"
  rm -f "$raw"
}

build_disk() {
  write_grub_config
  # UEFI: GRUB's modules stay in the standalone image's memdisk ($prefix); only the menu is read
  # from the root file system.
  cat >"$WORK/grub-esp.cfg" <<EOF
search --no-floppy --label $GUEST_ROOT_LABEL --set=root
configfile (\$root)/boot/grub/grub.cfg
EOF
  make_root_fs
  make_esp
  make_bios_core
  assemble_disk
}
