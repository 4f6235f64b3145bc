/** The banner that gives an ES-module bundle require, __filename and __dirname (commonjs-shim.mjs). */
export declare const commonJsShim: string;
/** The name a CommonJS bundle's import.meta.url is defined as (commonjs-shim.mjs). */
export declare const IMPORT_META_URL: string;
/** The banner that defines IMPORT_META_URL, 'use strict' first (commonjs-shim.mjs). */
export declare const fileUrlBanner: string;
