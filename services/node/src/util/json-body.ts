/**
 * A request's JSON body, whatever content type it came with (`curl -d` says form-urlencoded, fast routes
 * get exact bytes): the kit's one strict reader and rule (see `jsonBody` in `@anchor/common/http`).
 */
export { jsonBody } from '@anchor/common/http';
