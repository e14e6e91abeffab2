/** metricValue reads the first number `pattern` captures from a server's /metrics. */
export async function metricValue(url: string, pattern: RegExp): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const m = pattern.exec(text);
  return m ? Number(m[1]) : 0;
}

/** tasksCompleted is how many worker tasks the server has completed. */
export function tasksCompleted(url: string): Promise<number> {
  return metricValue(url, /sluice_query_tasks_total\{outcome="completed"\} (\d+)/);
}
