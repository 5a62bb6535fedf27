import { describe, expect, it } from 'vitest';
import { APPLICATION_NAME, maskedUrl, poolSettings } from './connect.ts';

describe('maskedUrl', () => {
  it.each([
    ['postgres://pos:s3cret@db.example:5432/pix', 'postgres://pos:***@db.example:5432/pix'],
    ['postgresql://pos:s3cret@db.example/pix?sslmode=require', 'postgresql://pos:***@db.example/pix?sslmode=require'],
    ['postgres://pos@db.example/pix', 'postgres://pos@db.example/pix'],
    ['postgres://db.example/pix', 'postgres://db.example/pix'],
    ['postgres://pos:p%40ss%3Aw0rd@10.0.0.1:5432,10.0.0.2:5433/pix?target_session_attrs=primary', 'postgres://pos:***@10.0.0.1:5432,10.0.0.2:5433/pix?target_session_attrs=primary'],
    ['postgres://pos:pa@ss@db.example/pix', 'postgres://pos:***@db.example/pix'],
    ['postgres://pos:@db.example/pix', 'postgres://pos:***@db.example/pix'],
    ['postgres://pos@db.example/pix?sslmode=require&password=s3cret#x', 'postgres://pos@db.example/pix?sslmode=require&password=***#x'],
    ['postgres://pos@db.example/pix?PASSWORD=s3cret', 'postgres://pos@db.example/pix?PASSWORD=***'],
    ['pos:s3cret@db.example', 'pos:***@db.example'],
  ])('%s → %s', (url, masked) => {
    expect(maskedUrl(url)).toBe(masked);
  });

  it('never contains the password, however it is spelled', () => {
    for (const password of ['s3cret', 'p@ss', 'a:b', 'x/y', 'q?r', 'h#sh', '%40', '***s3cret']) {
      const url = `postgres://pos:${password}@db.example:5432/pix`;
      expect(maskedUrl(url)).not.toContain(password);
      expect(maskedUrl(`postgres://pos:${encodeURIComponent(password)}@db.example/pix`)).not.toContain(encodeURIComponent(password));
    }
  });
});

describe('poolSettings', () => {
  it("takes the URL's password first, decoded", () => {
    expect(poolSettings({ url: 'postgres://pos:p%40ss@db.example/pix', env: { PGPASSWORD: 'from-env' } }).password).toBe('p@ss');
  });

  it('takes PGPASSWORD when the URL has none', () => {
    expect(poolSettings({ url: 'postgres://pos@db.example/pix', env: { PGPASSWORD: 'from-env' } }).password).toBe('from-env');
  });

  it('names the app, sets the statement timeout and the pool size, and silences notices', () => {
    const settings = poolSettings({ url: 'postgres://pos@db.example/pix', max: 4, statementTimeoutMs: 2_500, env: {} });
    expect(settings.max).toBe(4);
    expect(settings.connection).toEqual({ application_name: APPLICATION_NAME, statement_timeout: 2_500 });
    expect(settings.onnotice).toBeTypeOf('function');
  });
});
