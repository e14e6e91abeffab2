/**
 * Grouper assigns series to the groups of an aggregation's `by (...)` or `without (...)`
 * clause: a group key for matching and the label set the group's output series carries.
 * `without` always drops the metric name too, as Prometheus does.
 */
import { METRIC_NAME, keepLabels, removeLabels, signatureOn, signatureWithout, type Labels } from './labelset.js';

/** Grouper computes group keys and group labels for one aggregation. */
export class Grouper {
  private readonly sortedNames: string[];
  private readonly nameSet: ReadonlySet<string>;
  private readonly without: boolean;

  constructor(grouping: readonly string[], without: boolean) {
    this.without = without;
    this.sortedNames = [...new Set(grouping)].sort();
    this.nameSet = without ? new Set([...grouping, METRIC_NAME]) : new Set(grouping);
  }

  /** key is the group identity of a series. */
  key(labels: Labels): string {
    return this.without ? signatureWithout(labels, this.nameSet) : signatureOn(labels, this.sortedNames);
  }

  /** labels is the label set of the group a series belongs to. */
  labels(labels: Labels): Labels {
    return this.without ? removeLabels(labels, this.nameSet) : keepLabels(labels, this.nameSet);
  }
}
