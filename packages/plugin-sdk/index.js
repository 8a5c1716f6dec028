// The plugin API is the host's own module: a plugin and the server it runs in share one copy of it
// (CtxError, Reply and schemas are compared by identity). When ctx loads a plugin it resolves this
// package to its own `ctx/plugin`; see the README.
export * from 'ctx/plugin';
