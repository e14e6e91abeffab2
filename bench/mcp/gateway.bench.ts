import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Bench } from 'tinybench';
import { KeyAdmin } from '../../src/auth/apiKeys.js';
import { loadConfig } from '../../src/config.js';
import { Generator } from '../../src/gen/generator.js';
import { Sender, backfill } from '../../src/gen/sender.js';
import { startService } from '../../src/service.js';
import { runWhenDirect } from '../runDirect.js';
import { DiscardLog } from '../harness/discardLog.js';

/**
 * The tool gateway's overhead: the same query through the SSE API (read to `done`) and as an
 * MCP tools/call through the gateway (the SDK's Client over HTTP, its connection already
 * initialised), over two hours of the demo world on a real server on loopback. The ratio is
 * what an agent pays for summaries, budgets and MCP framing on top of the query itself.
 */
const HOURS = 2;

const QUERIES = [
  { name: 'error rate by service', q: 'sum by (service_name) (rate(http_requests_total{code=~"5.."}[5m]))', sse: '/api/v1/metrics/query', tool: 'query_metrics' },
  { name: 'all request series', q: 'rate(http_requests_total[1m])', sse: '/api/v1/metrics/query', tool: 'query_metrics' },
  { name: 'newest 100 payment lines', q: '{service_name="payments"}', sse: '/api/v1/logs/query', tool: 'query_logs' },
];

async function sseQuery(url: string, key: string, pathName: string, body: Record<string, unknown>): Promise<void> {
  const res = await fetch(`${url}${pathName}`, { method: 'POST', body: JSON.stringify(body), headers: { 'x-svc-api-key': key, 'content-type': 'application/json' } });
  if (res.status !== 200) throw new Error(`${pathName}: ${res.status} ${await res.text()}`);
  await res.arrayBuffer();
}

export async function main(): Promise<void> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'sluice-bench-mcp-'));
  const config = loadConfig({ SVC_PORT: '0', SVC_HOST: '127.0.0.1', SVC_DATA_DIR: dataDir, SVC_LOG_LEVEL: 'warn' });
  const service = await startService(config, { logDestination: new DiscardLog(), announce: () => {} });
  try {
    const [org] = await service.store.listOrgs();
    const { key } = await new KeyAdmin(service.store).createKey(org.id, 'bench');
    const url = `http://127.0.0.1:${service.port}`;
    await new Promise((r) => setTimeout(r, 50));
    const now = Date.now();
    await backfill(new Generator({ seed: 11, logsPerSecond: 10 }), new Sender(url, key), now - HOURS * 3_600_000, now);
    await service.storage.cut();
    const client = new Client({ name: 'bench', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/api/orgs/${org.id}/integrations/telemetry/mcp`), { requestInit: { headers: { 'x-svc-api-key': key } } }));
    console.log(`${HOURS} h of demo data; each query through the SSE API and as an MCP tool call`);
    for (const query of QUERIES) {
      const window = { s: `now-${HOURS}h` };
      const sseBody = query.tool === 'query_logs' ? { q: query.q, ...window, limit: 100, reverse: true } : { q: query.q, ...window, maxDataPoints: 100 };
      const toolArgs = query.tool === 'query_logs' ? { query: query.q, start: `now-${HOURS}h`, limit: 100 } : { query: query.q, start: `now-${HOURS}h` };
      const bench = new Bench({ time: 1500, warmupTime: 300 });
      bench.add('sse', () => sseQuery(url, key, query.sse, sseBody));
      bench.add('mcp', async () => {
        const result = await client.callTool({ name: query.tool, arguments: toolArgs });
        if (result.isError) throw new Error(JSON.stringify(result.content));
      });
      await bench.run();
      const [sse, mcp] = bench.tasks.map((t) => t.result as unknown as { latency: { mean: number } });
      console.log(`${query.name.padEnd(28)} SSE ${sse.latency.mean.toFixed(1).padStart(7)} ms   MCP ${mcp.latency.mean.toFixed(1).padStart(7)} ms   gateway/SSE ${(mcp.latency.mean / sse.latency.mean).toFixed(2)}x`);
    }
    await client.close();
  } finally {
    await service.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

runWhenDirect(import.meta.url, main);
