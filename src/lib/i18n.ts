import type { Lang } from '../../electron/core/contract.ts';

/**
 * UI texts in the three languages. English keys are the words tests rely on with
 * POS_LANG=en; pt-BR is the default. Money and dates are formatted with Intl for the
 * language, never by hand.
 */
const en = {
  'app.title': 'Pix cashier',
  'status.heading': 'Terminal status',
  'status.core': 'Core',
  'status.service': 'Payment service',
  'status.serviceMode.sandbox': 'Embedded sandbox',
  'status.serviceMode.remote': 'Payment service',
  'status.reachable': 'Service reachable',
  'status.unreachable': 'Service unreachable',
  'status.unchecked': 'Checking the service…',
  'status.terminal': 'Checkout',
  'status.terminalValue': 'Store {store} · Checkout {checkout}',
  'status.version': 'Version',
  'status.startedAt': 'Started',
  'status.checkNow': 'Check the service now',
  'state.starting': 'Starting',
  'state.ready': 'Ready',
  'state.stopping': 'Stopping',
  'state.stopped': 'Stopped',
  'state.failed': 'Failed',
  'connection.connecting': 'Connecting to the cashier app…',
  'connection.closed': 'Connection to the cashier app lost; reconnecting…',
  'connection.unauthorized': 'This window is not connected to the cashier app: open the address it printed.',
  'settings.language': 'Language',
} as const;

export type TextKey = keyof typeof en;
type Dictionary = Record<TextKey, string>;

const ptBR: Dictionary = {
  'app.title': 'Caixa Pix',
  'status.heading': 'Estado do terminal',
  'status.core': 'Núcleo',
  'status.service': 'Serviço de pagamento',
  'status.serviceMode.sandbox': 'Sandbox embutido',
  'status.serviceMode.remote': 'Serviço de pagamento',
  'status.reachable': 'Serviço acessível',
  'status.unreachable': 'Serviço inacessível',
  'status.unchecked': 'Verificando o serviço…',
  'status.terminal': 'Caixa',
  'status.terminalValue': 'Loja {store} · Caixa {checkout}',
  'status.version': 'Versão',
  'status.startedAt': 'Iniciado',
  'status.checkNow': 'Verificar o serviço agora',
  'state.starting': 'Iniciando',
  'state.ready': 'Pronto',
  'state.stopping': 'Parando',
  'state.stopped': 'Parado',
  'state.failed': 'Falhou',
  'connection.connecting': 'Conectando ao aplicativo do caixa…',
  'connection.closed': 'Conexão com o aplicativo do caixa perdida; reconectando…',
  'connection.unauthorized': 'Esta janela não está conectada ao aplicativo do caixa: abra o endereço que ele mostrou.',
  'settings.language': 'Idioma',
};

const es: Dictionary = {
  'app.title': 'Caja Pix',
  'status.heading': 'Estado del terminal',
  'status.core': 'Núcleo',
  'status.service': 'Servicio de pagos',
  'status.serviceMode.sandbox': 'Sandbox integrado',
  'status.serviceMode.remote': 'Servicio de pagos',
  'status.reachable': 'Servicio accesible',
  'status.unreachable': 'Servicio inaccesible',
  'status.unchecked': 'Verificando el servicio…',
  'status.terminal': 'Caja',
  'status.terminalValue': 'Tienda {store} · Caja {checkout}',
  'status.version': 'Versión',
  'status.startedAt': 'Iniciado',
  'status.checkNow': 'Verificar el servicio ahora',
  'state.starting': 'Iniciando',
  'state.ready': 'Listo',
  'state.stopping': 'Deteniéndose',
  'state.stopped': 'Detenido',
  'state.failed': 'Falló',
  'connection.connecting': 'Conectando con la aplicación de caja…',
  'connection.closed': 'Se perdió la conexión con la aplicación de caja; reconectando…',
  'connection.unauthorized': 'Esta ventana no está conectada a la aplicación de caja: abra la dirección que mostró.',
  'settings.language': 'Idioma',
};

const dictionaries: Record<Lang, Dictionary> = { 'pt-BR': ptBR, en, es };

export function translate(lang: Lang, key: TextKey, params?: Record<string, string | number>): string {
  const text = dictionaries[lang][key];
  return params ? text.replace(/\{(\w+)\}/g, (_, name: string) => String(params[name] ?? `{${name}}`)) : text;
}

export function formatMoney(lang: Lang, cents: number): string {
  return new Intl.NumberFormat(lang, { style: 'currency', currency: 'BRL' }).format(cents / 100);
}

export function formatDateTime(lang: Lang, iso: string): string {
  return new Intl.DateTimeFormat(lang, { dateStyle: 'short', timeStyle: 'medium' }).format(new Date(iso));
}
