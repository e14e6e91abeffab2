import { SETTINGS, type Config } from '../config.js';
import { ROLE_TABLE, type BackendNeed, type Role } from './roles.js';

/**
 * unmetBackendNeeds lists the shared backends `role` needs that the configuration does not
 * select. A need names a setting by its variable; the value is read from the loaded config
 * through the settings table, so a backend setting counts as soon as it is in that table, and
 * one this build does not have yet is reported as such rather than silently passing.
 */
export function unmetBackendNeeds(role: Role, config: Config): Array<{ need: BackendNeed; current: string | undefined }> {
  const unmet: Array<{ need: BackendNeed; current: string | undefined }> = [];
  for (const need of ROLE_TABLE[role].needs) {
    const setting = SETTINGS.find((s) => s.env === need.env);
    const current = setting === undefined ? undefined : String(config[setting.key]);
    if (current !== need.value) unmet.push({ need, current });
  }
  return unmet;
}

/**
 * roleBackendProblem explains why `role` cannot start on the configured backends, or returns
 * undefined when it can. A role other than `all` is one process among several, so everything
 * it shares with the others must live in a shared backend; with the embedded ones each process
 * would see only its own data directory. SVC_ROLE_EMBEDDED lifts the check for trying a role
 * alone on one machine.
 */
export function roleBackendProblem(config: Config): string | undefined {
  if (config.roleEmbedded) return undefined;
  const unmet = unmetBackendNeeds(config.role, config);
  if (unmet.length === 0) return undefined;
  const lines = unmet.map(({ need, current }) => {
    const state = current === undefined ? 'not available in this build yet' : `now ${current}`;
    return `  ${need.env}=${need.value} with ${need.with.join(', ')} (${state}): ${need.why}`;
  });
  return [
    `role ${config.role} runs beside other Sluice processes and cannot use the embedded backends; it needs:`,
    ...lines,
    'Use --role all (SVC_ROLE=all) for a single process, or SVC_ROLE_EMBEDDED=true to try this role alone over its own data directory.',
  ].join('\n');
}
