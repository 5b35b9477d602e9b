// interaction_click, interaction_key, interaction_scroll_settled (docs/service-api.md "Event types and categories").
import type { GenResult, GenState } from './context.js';
import { SELECTORS, UNICODE_TEXTS, cdpSource, pageContext, setY } from './context.js';

const TAGS = ['BUTTON', 'A', 'INPUT', 'DIV', 'SPAN', 'TEXTAREA', 'LI'];
const KEYS = ['Enter', 'Tab', 'Escape', 'ArrowDown', 'Backspace', 'a', 'Z', 'é', '7', ' '];

export function interactionClick(g: GenState): GenResult {
  const { rng } = g;
  const data: Record<string, unknown> = {
    ...pageContext(g),
    selector: rng.pick(SELECTORS),
    tag: rng.pick(TAGS),
    text: rng.pick(['Add to cart', 'Weiter →', '送信', 'Sign in', '', ...UNICODE_TEXTS.slice(0, 2)]),
    x: rng.int(0, 1279),
  };
  setY(g, data, rng.int(0, 799));
  return { data, source: cdpSource(g, 'Runtime.bindingCalled') };
}

export function interactionKey(g: GenState): GenResult {
  const { rng } = g;
  return {
    data: {
      ...pageContext(g),
      key: rng.pick(KEYS),
      selector: rng.pick(SELECTORS),
      tag: rng.pick(['INPUT', 'TEXTAREA', 'BODY', 'DIV']),
    },
    source: cdpSource(g, 'Runtime.bindingCalled'),
  };
}

export function interactionScrollSettled(g: GenState): GenResult {
  const { rng } = g;
  const fromY = g.scrollY;
  g.scrollY = Math.max(0, fromY + rng.int(-600, 1400));
  return {
    data: {
      ...pageContext(g),
      from_x: 0,
      from_y: fromY,
      to_x: rng.chance(0.1) ? rng.int(0, 300) : 0,
      to_y: g.scrollY,
      target_selector: rng.pick(['html', 'div.feed', 'main#content']),
    },
    source: cdpSource(g, 'Runtime.bindingCalled'),
  };
}
