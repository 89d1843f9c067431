export default function HomePage() {
  return (
    <main className="mx-auto max-w-3xl p-8">
      <h1 className="text-2xl font-semibold">kvm2 proxies</h1>
      <p className="mt-2 text-slate-600">
        Egress proxies as VMs on your own libvirt/KVM hosts. The dashboard is under construction.
      </p>
    </main>
  );
}
