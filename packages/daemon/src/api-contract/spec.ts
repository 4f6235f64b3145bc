import { isRecord } from '@tapline/shared/lean';
import type { HttpMethod, OpenApiDocument } from '@tapline/shared';
import { invalidField } from '../http/errors.js';
import { decodeSegment, KEPT_PATHS, parameterNames, templatePattern } from './paths.js';

type Json = Record<string, unknown>;

export interface SpecParameter {
  readonly name: string;
  readonly in: 'query' | 'header' | 'path';
  readonly required: boolean;
  /** Where its schema is, as a JSON pointer into the spec (the validators compile it there). */
  readonly schema: string | undefined;
}

export interface SpecOperation {
  readonly path: string;
  readonly method: HttpMethod;
  readonly pointer: string;
  readonly parameters: readonly SpecParameter[];
  readonly requestBody: { readonly required: boolean; readonly content: Json; readonly pointer: string } | undefined;
  readonly responses: Json;
}

const METHODS: readonly HttpMethod[] = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'];
const escapePointer = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');
const pointerOf = (...keys: string[]) => keys.map((k) => `/${escapePointer(k)}`).join('');

/**
 * An object of the spec with its `$ref`s to other parts of the same document followed, and the
 * pointer it was found at (the CLI bundles references to other files in, so only local ones remain).
 */
export function follow(spec: Json, value: unknown, pointer: string): { value: Json; pointer: string } | undefined {
  let current = value;
  let at = pointer;
  for (let hops = 0; isRecord(current) && typeof current.$ref === 'string'; hops++) {
    const ref = current.$ref;
    if (hops > 20 || !ref.startsWith('#')) return undefined;
    at = ref.slice(1);
    current = at
      .split('/')
      .slice(1)
      .map((k) => decodeURIComponent(k).replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce<unknown>((node, key) => (isRecord(node) ? node[key] : undefined), spec);
  }
  return isRecord(current) ? { value: current, pointer: at } : undefined;
}

function parametersOf(spec: Json, list: unknown, pointer: string): SpecParameter[] {
  if (!Array.isArray(list)) return [];
  return list.flatMap((item, i) => {
    const found = follow(spec, item, `${pointer}/${i}`);
    const p = found?.value;
    if (!p || !found || (p.in !== 'query' && p.in !== 'header' && p.in !== 'path') || typeof p.name !== 'string')
      return [];
    return [
      {
        name: p.name,
        in: p.in,
        required: p.required === true,
        schema: isRecord(p.schema) ? `${found.pointer}/schema` : undefined,
      },
    ];
  });
}

/** Every operation of the spec, with the path's parameters merged under the operation's own. */
export function operationsOf(spec: OpenApiDocument): SpecOperation[] {
  const version = typeof spec.openapi === 'string' ? spec.openapi : '';
  if (!/^3\.[01]\.\d+/.test(version))
    throw invalidField(
      'spec',
      `spec is not an OpenAPI 3.0 or 3.1 document (openapi: ${JSON.stringify(spec.openapi ?? null)})`,
    );
  if (!isRecord(spec.paths)) throw invalidField('spec', 'spec has no paths object');
  const operations: SpecOperation[] = [];
  for (const [path, rawItem] of Object.entries(spec.paths)) {
    const item = follow(spec, rawItem, pointerOf('paths', path));
    if (!item || !path.startsWith('/')) continue;
    const shared = parametersOf(spec, item.value.parameters, `${item.pointer}/parameters`);
    for (const method of METHODS) {
      const pointer = `${item.pointer}/${method.toLowerCase()}`;
      const op = item.value[method.toLowerCase()];
      if (!isRecord(op)) continue;
      const own = parametersOf(spec, op.parameters, `${pointer}/parameters`);
      const parameters = [...own, ...shared.filter((s) => !own.some((o) => o.name === s.name && o.in === s.in))];
      const body = follow(spec, op.requestBody, `${pointer}/requestBody`);
      const requestBody =
        body && isRecord(body.value.content)
          ? { required: body.value.required === true, content: body.value.content, pointer: `${body.pointer}/content` }
          : undefined;
      operations.push({
        path,
        method,
        pointer,
        parameters,
        requestBody,
        responses: isRecord(op.responses) ? op.responses : {},
      });
    }
  }
  return operations;
}

/** The path part of each server URL (`/api/v3` of Petstore's), which the spec's paths are relative to. */
export function basePathsOf(spec: OpenApiDocument): string[] {
  const servers = Array.isArray(spec.servers) ? spec.servers : [];
  const bases = new Set<string>(['']);
  for (const server of servers) {
    if (!isRecord(server) || typeof server.url !== 'string') continue;
    try {
      const path = new URL(server.url.replace(/\{[^}]*\}/g, 'x'), 'http://base.invalid').pathname.replace(/\/+$/, '');
      bases.add(path);
    } catch {
      continue;
    }
  }
  return [...bases].sort((a, b) => b.length - a.length);
}

/** A spec path a recorded path filled, with the values of its parameters by name (decoded). */
export interface PathMatch {
  readonly path: string;
  readonly values: ReadonlyMap<string, string>;
}

/** Which spec path a recorded path is: the most literal template that matches (`/pets/mine` before `/pets/{id}`). */
export class PathIndex {
  readonly #templates: { path: string; pattern: RegExp; literal: number; names: string[] }[];
  readonly #bases: readonly string[];

  constructor(paths: readonly string[], bases: readonly string[]) {
    this.#templates = [...new Set(paths)]
      .map((path) => ({
        path,
        pattern: templatePattern(path),
        literal: path.replace(/\{[^}]*\}/g, '').length,
        names: parameterNames(path),
      }))
      .sort((a, b) => b.literal - a.literal || (a.path < b.path ? -1 : 1));
    this.#bases = bases;
  }

  /** Matches by recorded path: an app's paths recur, and each new one is tried against every template. */
  readonly #found = new Map<string, PathMatch | undefined>();

  find(pathname: string): PathMatch | undefined {
    if (this.#found.has(pathname)) return this.#found.get(pathname);
    if (this.#found.size >= KEPT_PATHS) this.#found.clear();
    const match = this.#match(pathname);
    this.#found.set(pathname, match);
    return match;
  }

  #match(pathname: string): PathMatch | undefined {
    const path = pathname.split('?')[0] ?? '';
    for (const base of this.#bases) {
      if (base && !(path === base || path.startsWith(`${base}/`))) continue;
      const rest = path.slice(base.length) || '/';
      for (const t of this.#templates) {
        const match = t.pattern.exec(rest);
        if (match)
          return { path: t.path, values: new Map(t.names.map((name, i) => [name, decodeSegment(match[i + 1] ?? '')])) };
      }
    }
    return undefined;
  }
}
