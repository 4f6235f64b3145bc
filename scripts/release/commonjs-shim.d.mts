/** The banner that gives an ES-module bundle require, __filename and __dirname (commonjs-shim.mjs). */
export declare const commonJsShim: string;
