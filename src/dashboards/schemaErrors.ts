import type { ErrorObject } from 'ajv';
import type { IssueList } from './issueList.js';
import { issueAt, parsePointer, type DashboardIssue, type Location } from './issues.js';
import { suggestClosest } from '../suggest.js';

/**
 * Ajv reports what a schema keyword saw ("must NOT have additional properties"); people need
 * what to change ("unknown field "tittle" in a stat panel; did you mean "title"?"). This module
 * turns Ajv's verbose errors into findings that name the exact field, the allowed values and,
 * for typos, the likely intended word.
 */

/** SchemaObject is the part of a JSON Schema the translation reads. */
interface SchemaObject {
  title?: string;
  description?: string;
  type?: string;
  properties?: Record<string, SchemaObject>;
  enum?: unknown[];
  const?: unknown;
  pattern?: string;
  oneOf?: Array<{ $ref?: string }>;
  discriminator?: { propertyName: string };
  definitions?: Record<string, SchemaObject>;
}

/** SchemaFacts are the facts about the schema that messages need, computed once per schema. */
export interface SchemaFacts {
  /** tagValues maps a discriminated union (by title) to its allowed tag values. */
  tagValues: Map<string, string[]>;
  /** kindsWithField maps a panel field to the panel kinds that have it. */
  kindsWithField: Map<string, string[]>;
}

/** collectSchemaFacts reads the discriminated unions and per-kind panel fields out of the schema. */
export function collectSchemaFacts(schema: object): SchemaFacts {
  const root = schema as SchemaObject;
  const definitions = root.definitions ?? {};
  const tagValues = new Map<string, string[]>();
  const kindsWithField = new Map<string, string[]>();
  for (const definition of Object.values(definitions)) {
    const tag = definition.discriminator?.propertyName;
    if (tag === undefined || definition.oneOf === undefined) continue;
    const values: string[] = [];
    for (const option of definition.oneOf) {
      const target = option.$ref?.startsWith('#/definitions/') ? definitions[option.$ref.slice('#/definitions/'.length)] : undefined;
      const value = target?.properties?.[tag]?.const;
      if (typeof value !== 'string') continue;
      values.push(value);
      if (tag !== 'kind') continue;
      for (const field of Object.keys(target?.properties ?? {})) {
        const kinds = kindsWithField.get(field) ?? [];
        kinds.push(value);
        kindsWithField.set(field, kinds);
      }
    }
    tagValues.set(definition.title ?? tag, values);
  }
  return { tagValues, kindsWithField };
}

/**
 * translateSchemaErrors turns Ajv errors (compiled with `verbose: true`) into findings, one per
 * problem, adding them to `into`. Translating costs far more than Ajv's check (a 1 MB spec of
 * broken cells has 150,000 errors), so once the list is full the remaining errors are only
 * counted, after dropping repeats of the same keyword at the same place.
 */
export function translateSchemaErrors(errors: readonly ErrorObject[], data: unknown, facts: SchemaFacts, into: IssueList): void {
  const seen = new Set<string>();
  const seenRaw = new Set<string>();
  let omitted = 0;
  for (const error of errors) {
    const raw = `${error.instancePath}\u0000${error.keyword}\u0000${JSON.stringify(error.params)}`;
    if (seenRaw.has(raw)) continue;
    seenRaw.add(raw);
    if (!into.hasRoom('error')) {
      omitted++;
      continue;
    }
    const issue = translate(error, data, facts);
    if (!issue) continue;
    const key = `${issue.pointer}\u0000${issue.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    into.addIssue(issue);
  }
  into.countOmitted('error', omitted);
}

function translate(error: ErrorObject, data: unknown, facts: SchemaFacts): DashboardIssue | undefined {
  const at = parsePointer(error.instancePath, data);
  const parent = (error.parentSchema ?? {}) as SchemaObject;
  const params = error.params as Record<string, unknown>;
  const fail = (rule: string, location: Location, message: string): DashboardIssue => issueAt('error', `schema/${rule}`, location, message);
  switch (error.keyword) {
    case 'additionalProperties': {
      const field = String(params.additionalProperty);
      return fail('unknown-field', [...at, field], unknownFieldMessage(field, parent, facts));
    }
    case 'required': {
      const field = String(params.missingProperty);
      return fail('missing-field', [...at, field], `required field "${field}" is missing${parent.title ? ` from this ${parent.title}` : ''}`);
    }
    case 'type':
      return fail('wrong-type', at, `must be ${describeType(String(params.type))}, not ${describeValue(error.data)}`);
    case 'enum': {
      const allowed = (parent.enum ?? []).map((v) => JSON.stringify(v));
      const hint = typeof error.data === 'string' ? suggestClosest(error.data, (parent.enum ?? []).map(String)) : undefined;
      const lead = allowed.length === 1 ? `must be ${allowed[0]}` : `must be one of ${allowed.join(', ')}`;
      return fail('not-allowed', at, `${lead}, not ${describeValue(error.data)}${hint ? `; did you mean "${hint}"?` : ''}`);
    }
    case 'const':
      return fail('not-allowed', at, `must be ${JSON.stringify(params.allowedValue)}, not ${describeValue(error.data)}`);
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return fail('out-of-range', at, `${rangeMessage(error.keyword, params.limit)}, not ${describeValue(error.data)}${about(parent)}`);
    case 'minLength':
      if (params.limit === 1) return fail('out-of-range', at, 'must not be empty');
      return fail('out-of-range', at, `must be at least ${String(params.limit)} characters long`);
    case 'pattern':
      return fail('bad-format', at, `${describeValue(error.data)} does not have the expected form${about(parent)}`);
    case 'propertyNames':
      return fail('bad-format', at, `the key ${JSON.stringify(params.propertyName)} is not allowed here; keys must not be empty`);
    case 'discriminator':
      return discriminatorIssue(at, params, parent, error.data, facts);
    default:
      return fail(error.keyword, at, error.message ?? 'is not valid');
  }
}

/** discriminatorIssue is the single error for a wrong or missing `kind` (or `signal`): the union's options are not tried one by one. */
function discriminatorIssue(at: Location, params: Record<string, unknown>, parent: SchemaObject, data: unknown, facts: SchemaFacts): DashboardIssue {
  const tag = String(params.tag);
  const allowed = facts.tagValues.get(parent.title ?? tag) ?? [];
  const list = allowed.join(', ');
  const noun = parent.title ? `${parent.title} ${tag}` : `"${tag}" value`;
  const value = data !== null && typeof data === 'object' ? (data as Record<string, unknown>)[tag] : undefined;
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    return issueAt('error', 'schema/wrong-type', at, `must be an object, not ${describeValue(data)}`);
  }
  if (value === undefined) {
    return issueAt('error', 'schema/missing-field', [...at, tag], `required field "${tag}" is missing; set it to one of ${list}`);
  }
  if (typeof value !== 'string') {
    return issueAt('error', 'schema/wrong-type', [...at, tag], `must be a string naming the ${noun}: ${list}; not ${describeValue(value)}`);
  }
  const hint = suggestClosest(value, allowed);
  return issueAt(
    'error',
    'schema/unknown-kind',
    [...at, tag],
    `unknown ${noun} ${JSON.stringify(value)}; expected one of ${list}${hint ? `; did you mean "${hint}"?` : ''}`,
  );
}

function unknownFieldMessage(field: string, parent: SchemaObject, facts: SchemaFacts): string {
  const allowed = Object.keys(parent.properties ?? {});
  const where = parent.title ? ` in a ${parent.title}` : '';
  const kind = parent.properties?.kind?.const;
  if (typeof kind === 'string') {
    const others = (facts.kindsWithField.get(field) ?? []).filter((k) => k !== kind);
    if (others.length > 0) return `unknown field "${field}"${where}; only ${joinWords(others)} panels have it`;
  }
  const hint = suggestClosest(field, allowed);
  if (hint) return `unknown field "${field}"${where}; did you mean "${hint}"?`;
  return `unknown field "${field}"${where}; allowed fields: ${allowed.join(', ')}`;
}

/** joinWords lists words the way a sentence does: "a", "a and b", "a, b and c". */
function joinWords(words: readonly string[]): string {
  return words.length <= 1 ? words.join('') : `${words.slice(0, -1).join(', ')} and ${words[words.length - 1]}`;
}

function rangeMessage(keyword: string, limit: unknown): string {
  const n = String(limit);
  switch (keyword) {
    case 'minimum':
      return `must be at least ${n}`;
    case 'maximum':
      return `must be at most ${n}`;
    case 'exclusiveMinimum':
      return `must be greater than ${n}`;
    default:
      return `must be less than ${n}`;
  }
}

/** about adds the field's description, which for bounded fields says what the bound means. */
function about(schema: SchemaObject): string {
  const text = schema.description?.replace(/\.$/, '');
  return text ? ` (${text[0].toLowerCase()}${text.slice(1)})` : '';
}

function describeType(type: string): string {
  switch (type) {
    case 'integer':
      return 'a whole number';
    case 'object':
      return 'an object';
    case 'array':
      return 'an array';
    case 'string':
      return 'a string';
    case 'number':
      return 'a number';
    case 'boolean':
      return 'true or false';
    default:
      return type;
  }
}

/** describeValue names what was found, short enough for one line. */
function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  switch (typeof value) {
    case 'string':
      return value.length > 40 ? `the string ${JSON.stringify(value.slice(0, 37) + '...')}` : `the string ${JSON.stringify(value)}`;
    case 'number':
      return String(value);
    case 'boolean':
      return String(value);
    case 'object':
      return 'an object';
    default:
      return typeof value;
  }
}
