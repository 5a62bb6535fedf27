import { LANGS } from './config.ts';
import type { Core } from './core.ts';
import { handler } from './bridge/handler.ts';
import { v } from './bridge/schema.ts';

/**
 * Every operation the renderer may ask of the core. This map IS the bridge contract:
 * `contract.ts` derives method names, argument and result types from it, and both shells
 * register exactly these handlers.
 */
export function createHandlers(core: Core) {
  return {
    'core.status': handler(v.none(), () => core.status()),
    'core.checkService': handler(v.none(), async () => {
      await core.probeService();
      return core.status();
    }),
    'settings.setLang': handler(v.object({ lang: v.literal(...LANGS) }), ({ lang }) => core.setLang(lang)),
  };
}
