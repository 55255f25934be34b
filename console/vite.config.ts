import { defineConfig } from 'vite';

// Served by Larder at /console from dist/: every asset is bundled (no CDN, no external fonts).
export default defineConfig({
  base: '/console/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // One small script and one stylesheet: nothing to split, and no inlined data: URLs (the CSP forbids them).
    assetsInlineLimit: 0,
    reportCompressedSize: true,
  },
});
