import { DEFAULT_INGEST_LIMITS, type DiscardReason, type IngestLimits } from '../../engine/index.js';
import type { Config } from '../config.js';
import { describeOrigin, type EffectiveSetting, type EffectiveSettings } from '../meta/effectiveSettings.js';
import { ORG_SETTINGS, type RetentionSignal } from '../meta/orgSettings.js';
import type { OrgSettingsView } from '../meta/orgSettingsView.js';

/**
 * The limits an org writes under: the service's SVC_* values overridden by the org's own
 * settings (ORG_SETTINGS rows of the ingest subsystem), with the org's retention for the
 * signal as the oldest acceptable timestamp. The route asks `limitsFor(org, signal)` on every
 * request and passes the one object it gets to the decoders and the storage.
 */
export type IngestLimitsFor = (org: string, signal: RetentionSignal) => IngestLimits;

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
    discoverLogLevels: config.discoverLogLevels ? 1 : 0,
  };
}

/** Origins records which setting each limit of a limits object came from, for messages. */
type Origins = Partial<Record<keyof IngestLimits, EffectiveSetting>>;

/** ORIGINS maps each limits object handed out to the settings it was made of. */
const ORIGINS = new WeakMap<IngestLimits, Origins>();

/**
 * ingestLimitsFor gives each org the service's limits with its own settings over them. A
 * sample older than the org's retention for its signal would be deleted by the next retention
 * run, so it is refused at the door, as Loki refuses samples older than
 * reject_old_samples_max_age. The objects are built once per settings change and shared.
 */
export function ingestLimitsFor(service: IngestLimits, view: OrgSettingsView): IngestLimitsFor {
  const built = new WeakMap<EffectiveSettings, Record<RetentionSignal, IngestLimits>>();
  return (org, signal) => {
    const settings = view.settings(org);
    let limits = built.get(settings);
    if (limits === undefined) {
      limits = { metrics: buildLimits(service, settings, 'metrics'), logs: buildLimits(service, settings, 'logs') };
      built.set(settings, limits);
    }
    return limits[signal];
  };
}

function buildLimits(service: IngestLimits, settings: EffectiveSettings, signal: RetentionSignal): IngestLimits {
  const limits: IngestLimits = { ...service };
  const origins: Origins = {};
  for (const row of ORG_SETTINGS) {
    if (row.subsystem !== 'ingest') continue;
    limits[row.field] = settings[row.name].value;
    origins[row.field] = settings[row.name];
  }
  const retention = signal === 'metrics' ? settings.retentionMetricsDays : settings.retentionLogsDays;
  limits.maxSampleAgeMs = retention.value * 86_400_000;
  origins.maxSampleAgeMs = retention;
  ORIGINS.set(limits, origins);
  return limits;
}

/**
 * limitOrigin names where a limit of `limits` comes from: "this org's maxSeries" or the SVC_*
 * variable; for limits made elsewhere (tests, tools), the variable the service reads.
 */
export function limitOrigin(limits: IngestLimits, field: keyof IngestLimits): string {
  const origin = ORIGINS.get(limits)?.[field];
  if (origin !== undefined) return describeOrigin(origin);
  const row = ORG_SETTINGS.find((r) => r.subsystem === 'ingest' && r.field === field);
  return row?.env ?? (field === 'maxSampleAgeMs' ? 'SVC_RETENTION_DAYS' : field);
}

/** REASON_LIMITS names the limit behind each reason a limit causes. */
const REASON_LIMITS: Partial<Record<DiscardReason, keyof IngestLimits>> = {
  max_label_names_per_series: 'maxLabelsPerSeries',
  max_label_names_per_stream: 'maxLabelsPerStream',
  label_name_too_long: 'maxLabelNameLength',
  label_value_too_long: 'maxLabelValueLength',
  line_too_long: 'maxLogLineBytes',
  max_line_attributes: 'maxLineAttributes',
  line_attributes_too_large: 'maxLineAttributesBytes',
  series_limit: 'maxActiveSeries',
  stream_limit: 'maxActiveStreams',
  too_old: 'maxSampleAgeMs',
};

/**
 * describeReason renders a reason for an answer: `label_value_too_long (SVC_MAX_LABEL_VALUE_LENGTH=2048)`
 * or `series_limit (this org's maxSeries=500)`, so the sender learns which setting refused its
 * data, with what value, and whether it is the org's own or the service's.
 */
export function describeReason(reason: DiscardReason, limits: IngestLimits): string {
  const field = REASON_LIMITS[reason];
  if (field === undefined) return reason;
  const origin = limitOrigin(limits, field);
  if (field === 'maxSampleAgeMs') return `${reason} (retention of ${limits.maxSampleAgeMs / 86_400_000} days: ${origin})`;
  return `${reason} (${origin}=${limits[field]})`;
}
