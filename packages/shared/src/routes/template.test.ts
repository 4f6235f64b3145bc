import { describe, expect, it } from 'vitest';
import { inferTemplate, normalizeTemplate, resolveRoute, templateMatches, templateProblem } from './template.js';

describe('inferTemplate on real-looking paths', () => {
  const table: [path: string, template: string][] = [
    // REST ids
    ['/users/42', '/users/{id}'],
    ['/users/42/', '/users/{id}'],
    ['/users/42/orders/7', '/users/{userId}/orders/{orderId}'],
    ['/api/v1/users/42', '/api/v1/users/{id}'],
    ['/api/v2/orders/019a4c2e-7b1d-7c3e-9f00-1234567890ab', '/api/v2/orders/{id}'],
    ['/categories/12/products/98765', '/categories/{categoryId}/products/{productId}'],
    ['/addresses/3/line-items/4', '/addresses/{addressId}/line-items/{lineItemId}'],
    ['/statuses/1/boxes/2', '/statuses/{statusId}/boxes/{boxId}'],
    ['/42', '/{id}'],
    ['/42/43', '/{id}/{id2}'],
    ['/repos/5f9c1e2a8b3d4c7e9a1b2c3d', '/repos/{id}'],
    ['/commits/9fceb02d0ae598e95dc970b74767f19372d61af8', '/commits/{id}'],
    ['/customers/cus_NffrFeUfNV2Hib1234', '/customers/{id}'],
    ['/links/V1StGXR8_Z5jdHi6B-myT', '/links/{id}'],
    // slugs and words stay
    ['/products/blue-shirt', '/products/blue-shirt'],
    ['/blog/best-laptops-for-2024-review', '/blog/best-laptops-for-2024-review'],
    ['/docs/internationalization', '/docs/internationalization'],
    ['/users/me', '/users/me'],
    ['/', '/'],
    // versions and reserved prefixes are never parameters
    ['/v1/health', '/v1/health'],
    ['/api/v1.2/items/5', '/api/v1.2/items/{id}'],
    ['/graphql', '/graphql'],
    // dates and e-mail addresses
    ['/reports/2024-05-31', '/reports/{date}'],
    ['/reports/2024-05-31T10:00:00Z/summary', '/reports/{date}/summary'],
    ['/subscribers/bob%40example.com', '/subscribers/{email}'],
    ['/subscribers/bob@example.com/preferences', '/subscribers/{email}/preferences'],
    ['/stats/2024-05-31/users/42', '/stats/{date}/users/{userId}'],
    // files
    ['/assets/logo.png', '/assets/logo.png'],
    ['/static/app.js', '/static/app.js'],
    ['/avatars/42.png', '/avatars/{id}.png'],
    ['/invoices/019a4c2e-7b1d-7c3e-9f00-1234567890ab.pdf', '/invoices/{id}.pdf'],
    // nested resources with a constant action
    ['/orders/981/items/3/refund', '/orders/{orderId}/items/{itemId}/refund'],
    ['/teams/7/members', '/teams/{id}/members'],
    // the query never reaches a template
    ['/search?q=42', '/search'],
  ];
  it.each(table)('%s → %s', (path, template) => {
    expect(inferTemplate(path)).toBe(template);
  });
});

describe('normalizeTemplate', () => {
  const table: [raw: string, template: string | undefined][] = [
    ['/users/:id', '/users/{id}'],
    ['/users/:id?', '/users/{id}'],
    ['/users/:id(\\d+)', '/users/{id}'],
    ['/users/<id>', '/users/{id}'],
    ['/users/<int:id>', '/users/{id}'],
    ['/users/{id:int}', '/users/{id}'],
    ['/users/{id}', '/users/{id}'],
    ['/api//users/:userId/', '/api/users/{userId}'],
    ['/files/*', '/files/{wildcard}'],
    ['/', '/'],
    ['users/:id', undefined],
    ['/users/{id', undefined],
    ['/users/{id}/friends/{id}', undefined],
  ];
  it.each(table)('%s → %s', (raw, template) => {
    expect(normalizeTemplate(raw)).toBe(template);
  });

  it('names the problem of a malformed template', () => {
    expect(templateProblem('users')).toBe('a template begins with /');
    expect(templateProblem('/a/{b')).toContain('unbalanced braces');
    expect(templateProblem('/a/{b}/c/{b}')).toBe('the parameter {b} appears twice');
    expect(templateProblem('/a/{b}/c/{d}')).toBeUndefined();
  });
});

describe('resolveRoute: sent > rule > inferred', () => {
  it('takes the client’s template first, normalised', () => {
    expect(resolveRoute('/users/42', '/users/:id', ['/users/{userId}'])).toEqual({
      template: '/users/{id}',
      origin: 'sent',
    });
  });
  it('takes the most literal matching rule before inference', () => {
    const rules = ['/products/{slug}', '/products/featured'];
    expect(resolveRoute('/products/blue-shirt', null, rules)).toEqual({ template: '/products/{slug}', origin: 'rule' });
    expect(resolveRoute('/products/featured', null, rules)).toEqual({ template: '/products/featured', origin: 'rule' });
  });
  it('infers when nothing was sent and no rule matches; a malformed sent value counts as none', () => {
    expect(resolveRoute('/users/42', undefined, ['/products/{slug}'])).toEqual({
      template: '/users/{id}',
      origin: 'inferred',
    });
    expect(resolveRoute('/users/42', 'not a template')).toEqual({ template: '/users/{id}', origin: 'inferred' });
  });
  it('matches templates segment by segment', () => {
    expect(templateMatches('/avatars/{id}.png', '/avatars/42.png')).toBe(true);
    expect(templateMatches('/avatars/{id}.png', '/avatars/42.jpg')).toBe(false);
    expect(templateMatches('/users/{id}', '/users/42/orders')).toBe(false);
    expect(templateMatches('/users/{id}', '/users/')).toBe(false);
  });
});
