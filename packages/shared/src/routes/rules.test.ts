import { describe, expect, it } from 'vitest';
import { conflictingRule, parseRule, templateShape } from './rules.js';
import { suggestRules } from './suggest.js';

describe('route rules as typed', () => {
  it('normalises any spelling, and names what makes a template malformed', () => {
    expect(parseRule(' /products/:slug ')).toEqual({ template: '/products/{slug}' });
    expect(parseRule('/docs/<section>/<int:page>/')).toEqual({ template: '/docs/{section}/{page}' });
    expect(parseRule('products/{slug}')).toEqual({ problem: 'a template begins with /' });
    expect(parseRule('/products/{slug')).toEqual({ problem: 'unbalanced braces in "{slug"' });
    expect(parseRule('/a/{id}/b/{id}')).toEqual({ problem: 'the parameter {id} appears twice' });
  });

  it('finds a conflict only in a rule of the same paths', () => {
    const rules = [{ template: '/products/{slug}' }, { template: '/users/{id}/orders' }];
    expect(templateShape('/products/{slug}.{ext}')).toBe('/products/{}.{}');
    expect(conflictingRule('/products/{id}', rules)).toEqual({ template: '/products/{slug}' });
    expect(conflictingRule('/users/{user}/orders', rules)).toEqual({ template: '/users/{id}/orders' });
    expect(conflictingRule('/products/featured', rules)).toBeUndefined();
    expect(conflictingRule('/products/{slug}/reviews', rules)).toBeUndefined();
  });
});

describe('suggestions', () => {
  const seen = (paths: Record<string, number>) =>
    Object.entries(paths).map(([pathname, entries]) => ({ pathname, entries }));

  it('offers sibling constants under one constant parent, with the rest of the template equal', () => {
    const slugs = ['blue-shirt', 'red-hat', 'green-sock', 'black-boot', 'white-tee'];
    const paths = seen({
      ...Object.fromEntries(slugs.map((s, i) => [`/products/${s}`, i + 1])),
      ...Object.fromEntries(slugs.map((s) => [`/products/${s}/reviews`, 2])),
      '/users/42/orders': 1,
      '/users/43/profile': 1,
      '/users/44/cart': 1,
      '/users/45/wishlist': 1,
      '/users/46/settings': 1,
      '/api/a': 1,
      '/api/b': 1,
      '/api/c': 1,
      '/api/d': 1,
      '/api/e': 1,
      '/tags/alpha': 1,
      '/tags/beta': 1,
      '/tags/gamma': 1,
      '/tags/delta': 1,
    });
    expect(suggestRules(paths, [])).toEqual([
      {
        template: '/products/{slug}',
        parent: '/products/',
        values: 5,
        minSeen: 1,
        maxSeen: 5,
        entries: 15,
        examples: ['white-tee', 'black-boot', 'green-sock'],
      },
      {
        template: '/products/{slug}/reviews',
        parent: '/products/',
        values: 5,
        minSeen: 2,
        maxSeen: 2,
        entries: 10,
        examples: ['black-boot', 'blue-shirt', 'green-sock'],
      },
    ]);
  });

  it('names the parameter {name} for words, and offers nothing a rule already files or matches the same paths as', () => {
    const paths = seen({ '/tags/alpha': 1, '/tags/beta': 1, '/tags/gamma': 1, '/tags/delta': 1, '/tags/omega': 3 });
    expect(suggestRules(paths, []).map((s) => s.template)).toEqual(['/tags/{name}']);
    expect(suggestRules(paths, ['/tags/{tag}'])).toEqual([]);
  });
});
