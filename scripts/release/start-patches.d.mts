/** esbuild plugins: work taken out of the daemon's start (start-patches.mjs). */
export declare const depdWithoutLines: import('esbuild').Plugin;
export declare const lazyMimeMaps: import('esbuild').Plugin;
export declare const asciiOnly: import('esbuild').Plugin;
export declare const lazyRouteMatchers: import('esbuild').Plugin;
export declare const lazySonicBoomAssert: import('esbuild').Plugin;
export declare const lazyPinoTransport: import('esbuild').Plugin[];
export declare const startPatches: import('esbuild').Plugin[];
export declare const lazyIpAddress: import('esbuild').Plugin;
