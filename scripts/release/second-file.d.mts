/** The daemon's bundle in two files (second-file.mjs). */
export declare const SECOND_FILE: Record<string, string>;
export declare const secondFileSeam: import('esbuild').Plugin;
