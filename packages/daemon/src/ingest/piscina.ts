// Piscina, for prepare-pool.ts to load on the first large batch through `import('./piscina.js')`.
// A module of the bundle's own, not `import('piscina')`: in the daemon's CommonJS bundle, which
// launch.ts runs through vm.Script, a dynamic import of a package would be a real ES-module import,
// which vm.Script cannot make; this one the bundler turns into a require on first use.
export { Piscina } from 'piscina';
