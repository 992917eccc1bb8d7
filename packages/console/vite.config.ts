import { defineConfig } from 'vite';

// No framework plugin: Vite's own transform compiles TSX with React's automatic runtime, and the console
// needs no fast refresh to be built. The Hub serves `dist/` (packages/hub/src/http/console.ts).
export default defineConfig({
  root: import.meta.dirname,
  oxc: { jsx: { runtime: 'automatic', importSource: 'react' } },
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: false },
  server: { proxy: { '/api': 'http://localhost:8080' } },
});
