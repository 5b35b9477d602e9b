// The demo's daemon runs the same whatever the shell exports. A person who followed the README's
// "real service" block still has OTEL_EXPORTER_OTLP_LOGS_ENDPOINT (which wins over the endpoint the
// demo sets), BRIDGE_STORE_URL (a database that is not running), BRIDGE_SESSIONS or BRIDGE_LISTEN
// exported; any of them made the demo fail in ways that point nowhere near the cause. So the
// child gets the parent's environment without anything the bridge reads as configuration, then
// the demo's own settings, and the demo names what it left out. Pure: the command passes both in.

/** Prefixes of every variable the bridge reads as configuration (config/load-config.ts and the OTLP ones). */
const CONFIG_PREFIXES = ['BROWSER_', 'BRIDGE_', 'OTEL_'];
/** Proxies would send the demo's loopback traffic elsewhere (util/proxy-env.ts reads either case). */
const PROXIES = new Set(['HTTP_PROXY', 'HTTPS_PROXY', 'NO_PROXY']);

export interface DemoEnvironment {
  env: Record<string, string>;
  /** Names of the parent's variables the child does not see, sorted. */
  ignored: string[];
}

export function demoEnvironment(
  parent: Readonly<Record<string, string | undefined>>,
  own: Readonly<Record<string, string>>,
): DemoEnvironment {
  const env: Record<string, string> = {};
  const ignored: string[] = [];
  for (const [name, value] of Object.entries(parent)) {
    if (value === undefined) continue;
    const upper = name.toUpperCase();
    if (CONFIG_PREFIXES.some((p) => upper.startsWith(p)) || PROXIES.has(upper)) ignored.push(name);
    else env[name] = value;
  }
  return { env: { ...env, ...own }, ignored: ignored.sort() };
}
