// Typed errors of the host inventory and image eviction. They are not provider-contract classes
// but AppErrors (server/errors.ts): the API answers them by code (404 for an unknown host or
// image, 409 for an image in use or busy).
import { AppError } from '@/server/errors';

export class HostNotFoundError extends AppError {
  readonly code = 'ERR_HOST_NOT_FOUND';
  constructor(
    readonly hostName: string,
    provider: string,
  ) {
    super(`provider ${JSON.stringify(provider)} has no host named ${JSON.stringify(hostName)}`);
    this.name = 'HostNotFoundError';
  }
}

export class ImageNotFoundError extends AppError {
  readonly code = 'ERR_IMAGE_NOT_FOUND';
  constructor(
    readonly volume: string,
    reason: string,
  ) {
    super(`${JSON.stringify(volume)} ${reason}`);
    this.name = 'ImageNotFoundError';
  }
}

export class ImageInUseError extends AppError {
  readonly code = 'ERR_IMAGE_IN_USE';
  readonly volume: string;
  /** domains whose disks back onto the base */
  readonly domains: string[];
  /** volumes in the pool backing onto the base (overlays, a Create's before its define) */
  readonly volumes: string[];

  constructor(options: { volume: string; host: string; domains: string[]; volumes?: string[] }) {
    const { volume, host, domains, volumes = [] } = options;
    const users = [
      ...(domains.length > 0 ? [`${domains.length} domain(s) (${domains.join(', ')})`] : []),
      ...(volumes.length > 0 ? [`${volumes.length} volume(s) in the pool backing onto it (${volumes.join(', ')})`] : []),
    ];
    super(
      `base image ${volume} on host ${host} is in use by ${users.join(' and ')}; ` +
        'evicting it would pull the disk out from under them: delete their Proxies first',
    );
    this.name = 'ImageInUseError';
    this.volume = volume;
    this.domains = domains;
    this.volumes = volumes;
  }
}

/** The image's (host, volume) lock is held: a download of it, or a Create using it, is running. */
export class ImageBusyError extends AppError {
  readonly code = 'ERR_IMAGE_BUSY';
  constructor(
    readonly volume: string,
    readonly holder: string,
  ) {
    super(`base image ${volume} is busy: ${holder}; not evicting it now, try again once that has finished`);
    this.name = 'ImageBusyError';
  }
}
