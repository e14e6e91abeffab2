import { negotiateRemoteWrite, type RemoteWriteResult, type RemoteWriteVersion } from '../../engine/index.js';
import { ApiError } from '../errors.js';
import type { RequestContext } from '../http/router.js';

/**
 * The HTTP side of remote write's two versions: which one a request speaks (415 for what
 * neither is, as the 2.0 specification requires, so a 2.0 sender can fall back to 1.0) and the
 * `X-Prometheus-Remote-Write-*-Written` headers that tell the sender how much of its request
 * was stored. The headers go out for both versions and on the 400 that names rejected records
 * too: 2.0 requires them, and a 1.0 sender ignores them.
 */

/** remoteWriteVersion negotiates the request's version or throws the 415. */
export function remoteWriteVersion(ctx: RequestContext): RemoteWriteVersion {
  const negotiated = negotiateRemoteWrite(ctx.headers['content-type'], ctx.headers['content-encoding']);
  if ('unsupported' in negotiated) throw new ApiError('UNSUPPORTED_MEDIA_TYPE', negotiated.unsupported);
  return negotiated.version;
}

/** WrittenCounts are what a request had stored, per kind the specification counts. */
export interface WrittenCounts {
  samples: number;
  histograms: number;
  exemplars: number;
}

/**
 * writtenCounts works out the counts: the float samples stored less the zeros added at created
 * timestamps (the sender did not send those), the native histogram samples stored (storage
 * keeps them among a series' samples, so they are taken out of the float count) less the empty
 * histograms added at created timestamps, and the exemplars the store kept.
 */
export function writtenCounts(result: RemoteWriteResult, storedSamples: number, storedExemplars: number, storedHistograms = 0): WrittenCounts {
  const zeroHistograms = result.createdZeroHistograms;
  const zeroFloats = result.createdZeros - zeroHistograms;
  return {
    samples: Math.max(0, storedSamples - storedHistograms - zeroFloats),
    histograms: Math.max(0, storedHistograms - zeroHistograms),
    exemplars: storedExemplars,
  };
}

/** writtenHeaders renders the counts as the specification's response headers. */
export function writtenHeaders(written: WrittenCounts): Record<string, string> {
  return {
    'X-Prometheus-Remote-Write-Samples-Written': String(written.samples),
    'X-Prometheus-Remote-Write-Histograms-Written': String(written.histograms),
    'X-Prometheus-Remote-Write-Exemplars-Written': String(written.exemplars),
  };
}
