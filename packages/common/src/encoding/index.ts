export * from './base64.js';
export * from './jcs.js';
export * from './multihash.js';
export * from './multibase.js';
export * from './hashlink.js';
export * from './data-uri.js';
export * from './strict-json.js';
