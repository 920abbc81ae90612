"""Developer tools: the local server, the Chromium launcher, the benchmark, Lighthouse and screenshots."""
