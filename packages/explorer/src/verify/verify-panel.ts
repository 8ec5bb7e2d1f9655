import { h, type ComponentChild } from 'preact';
import { useState } from 'preact/hooks';
import type { Check } from './anchor.js';
import type * as VerifierModule from './verifier.js';
import type { AnchorVerification } from './verifier.js';

type Verifier = typeof VerifierModule;

/** The verifier is its own bundle, loaded on the first press (the page stays small). */
const VERIFIER_URL = new URL('./verifier.js', import.meta.url).href;
let verifier: Promise<Verifier> | undefined;
function loadVerifier(): Promise<Verifier> {
  verifier ??= import(VERIFIER_URL) as Promise<Verifier>;
  verifier.catch(() => (verifier = undefined));
  return verifier;
}

type State =
  | { state: 'idle' }
  | { state: 'running' }
  | { state: 'done'; results: AnchorVerification[] }
  | { state: 'failed'; message: string };

function checkItem(check: Check): ComponentChild {
  const label = check.notChecked === true ? 'not checked' : check.ok ? 'pass' : 'fail';
  const css = check.notChecked === true ? 'check unchecked' : check.ok ? 'check ok' : 'check bad';
  return h('li', { class: css, 'data-check': check.id, 'data-result': label }, [
    h('strong', null, `${check.title}: ${label}`),
    h('span', { class: 'reason' }, ` — ${check.reason}`),
  ]);
}

/** "Verify": checks, in the page, every anchor of the DID's history (anchor hash, proofs, policy, log inclusion). */
export function VerifyPanel(props: {
  base: string;
  anchors: readonly string[];
  /** Each anchor's operation origins the page knows (its batch witnesses). */
  originsOf?: Readonly<Record<string, readonly string[]>>;
}): ComponentChild {
  const [run, setRun] = useState<State>({ state: 'idle' });
  const start = (): void => {
    setRun({ state: 'running' });
    loadVerifier()
      .then((loaded) => loaded.verifyAnchors(props.base, props.anchors, props.originsOf))
      .then(
        (results) => setRun({ state: 'done', results }),
        (error: unknown) =>
          setRun({ state: 'failed', message: error instanceof Error ? error.message : String(error) }),
      );
  };
  const passed =
    run.state === 'done' && run.results.every((result) => result.checks.every((check) => check.ok || check.notChecked));
  return h('section', { 'aria-labelledby': 'verify-title', id: 'verify' }, [
    h('h3', { id: 'verify-title' }, 'Verification'),
    h(
      'button',
      {
        type: 'button',
        id: 'verify-button',
        onClick: start,
        disabled: run.state === 'running' || props.anchors.length === 0,
      },
      props.anchors.length === 0 ? 'Verify (no anchor yet)' : `Verify ${props.anchors.length} anchor(s) in this page`,
    ),
    h(
      'p',
      { role: 'status', 'aria-live': 'polite', id: 'verify-status' },
      run.state === 'running'
        ? 'Verifying…'
        : run.state === 'failed'
          ? `The verifier could not run: ${run.message}`
          : run.state === 'done'
            ? passed
              ? 'Every check made passes.'
              : 'Some checks fail: see the reasons.'
            : '',
    ),
    run.state === 'done'
      ? run.results.map((result) =>
          h('div', { class: 'verification', 'data-anchor': result.anchor }, [
            h('h4', { class: 'hash' }, `Anchor ${result.anchor}`),
            h('ul', null, result.checks.map(checkItem)),
          ]),
        )
      : null,
  ]);
}
