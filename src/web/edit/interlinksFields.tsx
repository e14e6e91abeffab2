import { useEffect, useRef, useState } from 'preact/hooks';
import type { PanelInterlink } from '../../dashboards/types.js';
import { CheckField, ListField, PairsField, TextField, withField } from './fieldInputs.js';

/** keepTimeRange sets the flag; true is the spec's default, so it is left out rather than written. */
function keepTimeRange(link: PanelInterlink, keep: boolean): PanelInterlink {
  const { keepTimeRange: _old, ...rest } = link;
  return keep ? rest : { ...rest, keepTimeRange: false };
}

interface InterlinksFieldsProps {
  value: readonly PanelInterlink[] | undefined;
  /** targets lists the ids of the org's dashboards, offered as targets (typing another id is allowed). */
  targets?: () => Promise<string[]>;
  onValue: (links: PanelInterlink[]) => void;
}

/**
 * InterlinksFields edits a panel's links menu: per link its menu label, target dashboard,
 * the labels a clicked series must have, which target variable each series label fills, the
 * menu group and entity kind, and whether the time range goes along. A link not touched is
 * handed on exactly as it was; the spec's required fields are written even when empty, so the
 * server's check points at what is missing.
 */
export function InterlinksFields({ value, targets, onValue }: InterlinksFieldsProps) {
  const links = value ?? [];
  // Each link keeps a key of its own, so removing one does not hand its typed text to the next.
  const nextKey = useRef(links.length);
  const [keys, setKeys] = useState(() => links.map((_, i) => i));
  const [targetIds, setTargetIds] = useState<string[]>([]);
  useEffect(() => {
    let live = true;
    targets?.()
      .then((ids) => live && setTargetIds(ids))
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, []);

  const change = (i: number, key: keyof PanelInterlink, v: unknown): void =>
    onValue(links.map((l, j) => (j === i ? (withField(l as unknown as Record<string, unknown>, key, v) as unknown as PanelInterlink) : l)));
  /** required fields stay in the link when emptied, so the server names them. */
  const changeRequired = (i: number, key: keyof PanelInterlink, v: unknown): void => onValue(links.map((l, j) => (j === i ? { ...l, [key]: v } : l)));

  return (
    <fieldset class="interlinks" data-testid="interlinks">
      <legend>Links menu (interlinks)</legend>
      {links.length === 0 && <p class="hint">No links: clicking a series opens nothing.</p>}
      {targetIds.length > 0 && (
        <datalist id="interlink-targets">
          {targetIds.map((id) => (
            <option key={id} value={id} />
          ))}
        </datalist>
      )}
      {links.map((link, i) => (
        <fieldset class="interlink kind-fields" key={keys[i] ?? `extra-${i}`} data-link-index={i}>
          <legend>Link {i + 1}</legend>
          <TextField id={`link-label-${i}`} label="Menu label" value={link.label} placeholder="Logs of {{service_name}}" onValue={(v) => changeRequired(i, 'label', v)} />
          <label for={`link-target-${i}`}>Target dashboard id</label>
          <input id={`link-target-${i}`} list="interlink-targets" value={link.targetDashboardId ?? ''} onInput={(e) => changeRequired(i, 'targetDashboardId', e.currentTarget.value.trim())} />
          <ListField id={`link-required-${i}`} label="Required labels (comma separated)" value={link.requiredLabels} placeholder="service_name" onValue={(v) => changeRequired(i, 'requiredLabels', v)} />
          <TextField id={`link-group-${i}`} label="Menu group" value={link.group} onValue={(v) => change(i, 'group', v)} />
          <TextField id={`link-entity-${i}`} label="Entity kind" value={link.entityKind} placeholder="service" onValue={(v) => change(i, 'entityKind', v)} />
          <CheckField id={`link-keep-time-${i}`} label="Keep the time range" checked={link.keepTimeRange !== false} onValue={(v) => onValue(links.map((l, j) => (j === i ? keepTimeRange(l, v) : l)))} />
          <PairsField
            id={`link-params-${i}`}
            legend="Target variables filled from the clicked series"
            keyLabel="Variable"
            valueLabel="from label"
            value={link.paramMap}
            addLabel="Add variable"
            onValue={(v) => changeRequired(i, 'paramMap', v)}
          />
          <button
            type="button"
            class="small danger"
            aria-label={`Remove link ${i + 1}`}
            onClick={() => {
              setKeys(keys.filter((_, j) => j !== i));
              onValue(links.filter((_, j) => j !== i));
            }}
          >
            Remove link
          </button>
        </fieldset>
      ))}
      <button
        type="button"
        class="small"
        onClick={() => {
          setKeys([...keys, nextKey.current++]);
          onValue([...links, { label: '', targetDashboardId: '', requiredLabels: [], paramMap: {} }]);
        }}
      >
        Add link
      </button>
    </fieldset>
  );
}
