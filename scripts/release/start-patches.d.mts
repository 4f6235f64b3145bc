/** esbuild plugins: work taken out of the daemon's start (start-patches.mjs). */
export declare const asciiOnly: import('esbuild').Plugin;
