// Typed errors of the host inventory and image eviction. They are not provider-contract classes:
// the API answers them by code (404 for an unknown host or image, 409 for an image in use).

export class HostNotFoundError extends Error {
  readonly code = 'ERR_HOST_NOT_FOUND';
  constructor(readonly hostName: string, provider: string) {
    super(`provider ${JSON.stringify(provider)} has no host named ${JSON.stringify(hostName)}`);
    this.name = 'HostNotFoundError';
  }
}

export class ImageNotFoundError extends Error {
  readonly code = 'ERR_IMAGE_NOT_FOUND';
  constructor(readonly volume: string, reason: string) {
    super(`${JSON.stringify(volume)} ${reason}`);
    this.name = 'ImageNotFoundError';
  }
}

export class ImageInUseError extends Error {
  readonly code = 'ERR_IMAGE_IN_USE';
  constructor(readonly volume: string, readonly domains: string[], host: string) {
    super(
      `base image ${volume} on host ${host} is in use by ${domains.length} domain(s) (${domains.join(', ')}); ` +
        'evicting it would pull the disk out from under them: delete their Proxies first',
    );
    this.name = 'ImageInUseError';
  }
}
