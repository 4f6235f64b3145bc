// @vitest-environment happy-dom
import { cleanup, render } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { JsonTree } from './JsonTree.js';

afterEach(cleanup);

describe('JsonTree', () => {
  it('folds every object and array, and shows every value as text', () => {
    const { container } = render(<JsonTree value={{ user: { tags: ['a', '<script>x</script>'] }, n: 1, ok: null }} />);
    expect(container.querySelectorAll('details')).toHaveLength(3);
    expect(container.querySelector('script')).toBeNull();
    expect(container.textContent).toContain('"<script>x</script>"');
    expect(container.textContent).toContain('ok: null');
  });
});
