import { describe, expect, it } from 'vitest';
import { CONTENT_SECURITY_POLICY, withContentSecurityPolicy } from './csp.ts';

const PAGE = '<!doctype html>\n<html>\n  <head>\n    <meta charset="UTF-8" />\n    <title>x</title>\n  </head>\n</html>\n';

describe('withContentSecurityPolicy (the build puts csp.ts into both pages)', () => {
  it('puts the policy right after the charset, as the first thing a browser applies', () => {
    const html = withContentSecurityPolicy(PAGE);
    const policies = [...html.matchAll(/<meta http-equiv="Content-Security-Policy" content="([^"]*)" \/>/g)].map((m) => m[1]);
    expect(policies).toEqual([CONTENT_SECURITY_POLICY]);
    expect(html.indexOf('Content-Security-Policy')).toBeLessThan(html.indexOf('<title>'));
  });

  it.each([
    ['a hand-written policy (it would drift from csp.ts)', PAGE.replace('<title>', '<meta http-equiv="Content-Security-Policy" content="default-src *" />\n<title>')],
    ['one written in lower case', PAGE.replace('<title>', "<meta http-equiv='content-security-policy' content='default-src *'>\n<title>")],
    ['a page without its charset first', PAGE.replace('<meta charset="UTF-8" />\n', '')],
  ])('refuses %s', (_name, page) => {
    expect(() => withContentSecurityPolicy(page)).toThrow();
  });
});
