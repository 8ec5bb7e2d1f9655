import type { ContextDocument } from '../context-document.js';

/** https://w3id.org/activityanchors/v1 — the copy the original embeds and loads in preference to the web (trustbloc/orb internal/pkg/ldcontext/payload/activity-anchors-v1.json). Data, copied verbatim. */
const context: ContextDocument = {
  "@context": {
    "@version": 1.1,
    "@protected": true,
    "AnchorEvent": {
      "@id": "https://w3id.org/activityanchors#AnchorEvent",
      "@context": {
        "@version": 1.1,
        "@protected": true,
        "id": "@id",
        "type": "@type"
      }
    },
    "AnchorReceipt": {
      "@id": "https://w3id.org/activityanchors#AnchorReceipt",
      "@context": {
        "@version": 1.1,
        "@protected": true,
        "id": "@id",
        "type": "@type"
      }
    },
    "AnchorCredential": {
      "@id": "https://w3id.org/activityanchors#AnchorCredential",
      "@context": {
        "@version": 1.1,
        "@protected": true,
        "id": "@id",
        "type": "@type"
      }
    },
    "anchor": "https://w3id.org/activityanchors#anchor",
    "profile": "https://w3id.org/activityanchors#profile"
  }
};

export default context;
