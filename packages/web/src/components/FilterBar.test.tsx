// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FilterBar } from './FilterBar.js';

afterEach(cleanup);

describe('FilterBar', () => {
  it('shows the reason and the column of an expression the language does not take, and never applies it', () => {
    const onApply = vi.fn();
    render(<FilterBar value="" onApply={onApply} />);
    const input = screen.getByLabelText('Filter');
    fireEvent.change(input, { target: { value: 'status>=500 and stauts=1' } });
    const alert = screen.getByRole('alert');
    expect(alert.textContent).toContain('unknown field "stauts"');
    expect(alert.textContent).toContain('(column 17)');
    // The caret stands under the column: 16 spaces, then ^.
    expect(alert.querySelector('pre')?.textContent).toBe('status>=500 and stauts=1\n' + ' '.repeat(16) + '^');
    expect(input.getAttribute('aria-invalid')).toBe('true');
    fireEvent.submit(input);
    expect(onApply).not.toHaveBeenCalled();
  });

  it('applies an expression that parses, trimmed, and an empty one', () => {
    const onApply = vi.fn();
    render(<FilterBar value="method=GET" onApply={onApply} />);
    const input = screen.getByLabelText('Filter');
    fireEvent.change(input, { target: { value: '  status=5xx ' } });
    expect(screen.queryByRole('alert')).toBeNull();
    fireEvent.submit(input);
    fireEvent.change(input, { target: { value: '' } });
    fireEvent.submit(input);
    expect(onApply.mock.calls).toEqual([['status=5xx'], ['']]);
  });
});
