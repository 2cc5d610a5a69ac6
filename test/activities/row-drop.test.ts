import { describe, expect, it } from 'vitest';
import { rowDropFailure } from '../../activities/row-drop.js';
import { guardOf } from '../../activities/alerts.js';

describe('the row-drop guard', () => {
  it('says what it counted and by how much live would shrink, and the alert names it, whether validate or the publish tripped it', () => {
    const validated = rowDropFailure('snapshot has', 540, 1000);
    const merged = rowDropFailure('the merge left', 540, 1000);
    expect(validated.message).toBe('snapshot has 540 rows against 1000 live (46.0% fewer, over the 10% limit); rerun with --force if the drop is real');
    expect(merged.message).toBe('the merge left 540 rows against 1000 live (46.0% fewer, over the 10% limit); rerun with --force if the drop is real');
    expect(validated.type).toBe('ValidationFailed');
    expect(validated.nonRetryable).toBe(true);
    expect(guardOf(validated.message)).toBe('row-drop');
    expect(guardOf(merged.message)).toBe('row-drop');
  });
});
