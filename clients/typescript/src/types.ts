/** Request and result types of every operation, derived from the generated OpenAPI types (never written by hand). */
import type { operations } from './generated/openapi.js';

export type { operations, paths, components } from './generated/openapi.js';
export type OperationId = keyof operations;

type Parameters<O extends OperationId> = operations[O]['parameters'];
type Json<C> = C extends { content: { 'application/json': infer J } } ? J : never;
type SuccessCode = 200 | 201 | 202;
type Success<O extends OperationId> = operations[O]['responses'][SuccessCode & keyof operations[O]['responses']];

/** The query parameters of an operation (undefined when it takes none). */
export type QueryOf<O extends OperationId> = Parameters<O> extends { query?: infer Q } ? ([Q] extends [never] ? undefined : Q) : undefined;
/** The path parameters of an operation. */
export type PathOf<O extends OperationId> = Parameters<O> extends { path?: infer P } ? ([P] extends [never] ? undefined : P) : undefined;
/** The JSON body of an operation. */
export type BodyOf<O extends OperationId> = [Json<NonNullable<operations[O]['requestBody']>>] extends [never]
  ? undefined
  : Json<NonNullable<operations[O]['requestBody']>>;
/** What a successful call resolves to: the envelope's `result`, or the whole body for routes without the envelope. */
export type ResultOf<O extends OperationId> = Json<Success<O>> extends { status: 'ok'; result: infer R } ? R : Json<Success<O>> extends never ? unknown : Json<Success<O>>;

/** Everything one call may carry. */
export interface CallOptions<O extends OperationId> {
  query?: QueryOf<O>;
  path?: PathOf<O>;
  body?: BodyOf<O> | BodyInit;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** Safe to repeat: transient failures are retried. GET, PUT, DELETE default to true, POST and PATCH to false. */
  idempotent?: boolean;
}

/** Per-request options every group method accepts as its last argument. */
export interface RequestOptions {
  signal?: AbortSignal;
  headers?: Record<string, string>;
}
