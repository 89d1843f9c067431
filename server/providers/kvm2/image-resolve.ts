// placement.image -> the image to boot and the base volume it is cached in (resolveImage). The
// image cache itself (download, marker, eviction) lives in image.ts.
import type { Firmware, ImageFormat } from '@/server/providers/config-kvm2';
import { isHttpUrl } from '@/server/providers/config-kvm2';
import { ErrPermanent } from '@/server/providers/errors';
import { redactUrl } from '@/server/telemetry/redact-url';
import { kvm2Defaults, type Kvm2Settings } from './kvm2';
import { baseVolumeName, markerVolumeName, urlImageKey } from './volume';

export interface ResolvedImage {
  /** the images key, or the first 16 hex of the URL's sha256 for a URL image */
  key: string;
  url: string;
  /** expected digest (lower-case hex), when configured */
  sha256: string | undefined;
  format: ImageFormat;
  firmware: Firmware;
  /** `base-<entry>-<key>.<format>` */
  baseVolume: string;
  /** `<baseVolume>.sha256` */
  markerVolume: string;
  /** false for an http(s) URL used directly */
  fromCatalogue: boolean;
}

/**
 * A key of kvm2.images, or an http(s) URL used directly with the defaults (qcow2, uefi, no
 * digest). Anything else is permanent.
 */
export function resolveImage(settings: Kvm2Settings, image: string): ResolvedImage {
  const configured = settings.images.get(image);
  const resolved = configured
    ? { key: image, ...configured, fromCatalogue: true }
    : isHttpUrl(image)
      ? {
          key: urlImageKey(image),
          url: image,
          sha256: undefined,
          format: kvm2Defaults.format,
          firmware: kvm2Defaults.firmware,
          fromCatalogue: false,
        }
      : undefined;
  if (!resolved) {
    // A value that parses as a URL (ftp://user:token@...) is redacted like any other URL.
    const shown = URL.canParse(image) ? redactUrl(image) : image;
    throw new ErrPermanent(`placement.image ${JSON.stringify(shown)} is neither a key in kvm2.images nor an http(s) URL`);
  }
  const baseVolume = baseVolumeName({ provider: settings.name, key: resolved.key, format: resolved.format });
  return { ...resolved, baseVolume, markerVolume: markerVolumeName(baseVolume) };
}
