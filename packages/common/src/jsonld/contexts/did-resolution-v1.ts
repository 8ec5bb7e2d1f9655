import type { ContextDocument } from '../context-document.js';

/** https://w3id.org/did-resolution/v1 — as embedded by aries-framework-go (did_docres_v1.jsonld), which the original uses. Data, copied verbatim. */
const context: ContextDocument = {
  "@context": {
    "@version": 1.1,
    "@protected": true,
    "id": "@id",
    "type": "@type",
    "xsd": "http://www.w3.org/2001/XMLSchema#",
    "didDocument": "https://www.w3.org/ns/did/v1",
    "didResolutionMetadata": "https://w3id.org/did-resolution#didResolutionMetadata",
    "contentType": "https://w3id.org/did-resolution#contentType",
    "error": "https://w3id.org/did-resolution#error",
    "didDocumentMetadata": "https://w3id.org/did-resolution#didDocumentMetadata",
    "created": {
      "@id": "https://w3id.org/did-resolution#created",
      "@type": "xsd:dateTime"
    },
    "updated": {
      "@id": "https://w3id.org/did-resolution#updated",
      "@type": "xsd:dateTime"
    },
    "deactivated": {
      "@id": "https://w3id.org/did-resolution#deactivated",
      "@type": "xsd:boolean"
    },
    "nextUpdate": {
      "@id": "https://w3id.org/did-resolution#nextUpdate",
      "@type": "xsd:dateTime"
    },
    "versionId": "https://w3id.org/did-resolution#versionId",
    "nextVersionId": "https://w3id.org/did-resolution#nextVersionId",
    "equivalentId": {
      "@id": "https://w3id.org/did-resolution#equivalentId",
      "@type": "@id",
      "@container": "@set"
    },
    "canonicalId": {
      "@id": "https://w3id.org/did-resolution#canonicalId",
      "@type": "@id"
    }
  }
};

export default context;
