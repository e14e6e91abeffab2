import { DEFAULT_INGEST_LIMITS, type DiscardReason, type IngestLimits } from '../../engine/index.js';
import type { Config } from '../config.js';

/**
 * The limits an org writes under. Today every org gets the service's SVC_* values, except the
 * oldest acceptable timestamp, which follows the org's own retention; the route asks
 * `limitsFor(org)` on every request and passes the one object it gets to the decoders and the
 * storage, so per-org overrides only have to change what this function returns.
 */
export type IngestLimitsFor = (org: string) => IngestLimits;

/** serviceIngestLimits reads the service-wide limits from the configuration. */
export function serviceIngestLimits(config: Config): IngestLimits {
  return {
    ...DEFAULT_INGEST_LIMITS,
    maxLabelsPerSeries: config.maxLabelsPerSeries,
    maxLabelsPerStream: config.maxLabelsPerStream,
    maxLabelNameLength: config.maxLabelNameLength,
    maxLabelValueLength: config.maxLabelValueLength,
    maxLogLineBytes: config.maxLineBytes,
    maxLineAttributes: config.maxLineAttributes,
    maxLineAttributesBytes: config.maxLineAttributesBytes,
    maxActiveSeries: config.maxSeriesPerOrg,
    maxActiveStreams: config.maxStreamsPerOrg,
    maxSampleAgeMs: config.retentionDays * 86_400_000,
    ingestSamplesPerSecond: config.ingestSamplesPerSecond,
    ingestSamplesBurst: config.ingestSamplesBurst,
    ingestLogBytesPerSecond: config.ingestLogBytesPerSecond,
    ingestLogBurstBytes: config.ingestLogBurstBytes,
  };
}

/**
 * ingestLimitsFor gives each org the service's limits with its own retention as the oldest
 * acceptable age: a sample older than that would be deleted by the next retention run, so it
 * is refused at the door as Loki refuses samples older than reject_old_samples_max_age.
 */
export function ingestLimitsFor(service: IngestLimits, orgRetentionMs: (org: string) => number | undefined): IngestLimitsFor {
  return (org) => {
    const retention = orgRetentionMs(org);
    return retention === undefined || retention === service.maxSampleAgeMs ? service : { ...service, maxSampleAgeMs: retention };
  };
}

/** LimitSetting names the setting behind a reason and its value in the limits that applied. */
interface LimitSetting {
  name: string;
  value(limits: IngestLimits): number;
}

const LIMIT_SETTINGS: Partial<Record<DiscardReason, LimitSetting>> = {
  max_label_names_per_series: { name: 'SVC_MAX_LABELS_PER_SERIES', value: (l) => l.maxLabelsPerSeries },
  max_label_names_per_stream: { name: 'SVC_MAX_LABELS_PER_STREAM', value: (l) => l.maxLabelsPerStream },
  label_name_too_long: { name: 'SVC_MAX_LABEL_NAME_LENGTH', value: (l) => l.maxLabelNameLength },
  label_value_too_long: { name: 'SVC_MAX_LABEL_VALUE_LENGTH', value: (l) => l.maxLabelValueLength },
  line_too_long: { name: 'SVC_MAX_LINE_BYTES', value: (l) => l.maxLogLineBytes },
  max_line_attributes: { name: 'SVC_MAX_LINE_ATTRIBUTES', value: (l) => l.maxLineAttributes },
  line_attributes_too_large: { name: 'SVC_MAX_LINE_ATTRIBUTES_BYTES', value: (l) => l.maxLineAttributesBytes },
  series_limit: { name: 'SVC_MAX_SERIES_PER_ORG', value: (l) => l.maxActiveSeries },
  stream_limit: { name: 'SVC_MAX_STREAMS_PER_ORG', value: (l) => l.maxActiveStreams },
  too_old: { name: 'retention', value: (l) => l.maxSampleAgeMs / 86_400_000 },
};

/**
 * describeReason renders a reason for an answer: `label_value_too_long (SVC_MAX_LABEL_VALUE_LENGTH=2048)`,
 * so the sender learns which setting refused its data and with what value.
 */
export function describeReason(reason: DiscardReason, limits: IngestLimits): string {
  const setting = LIMIT_SETTINGS[reason];
  if (setting === undefined) return reason;
  if (reason === 'too_old') return `${reason} (retention of ${setting.value(limits)} days: SVC_RETENTION_DAYS or the org's own)`;
  return `${reason} (${setting.name}=${setting.value(limits)})`;
}
