/** esbuild plugins: work taken out of the daemon's start (start-patches.mjs). */
export declare const depdWithoutLines: import('esbuild').Plugin;
export declare const lazyMimeMaps: import('esbuild').Plugin;
export declare const asciiOnly: import('esbuild').Plugin;
