import type { ContextDocument } from '../context-document.js';

/** https://www.w3.org/ns/credentials/undefined-terms/v2 — @digitalbazaar/credentials-context 3.2.0. Data, copied verbatim. */
const context: ContextDocument = {
  "@context": {
    "@vocab": "https://www.w3.org/ns/credentials/undefined-term#"
  }
};

export default context;
