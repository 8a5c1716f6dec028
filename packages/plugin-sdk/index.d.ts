export * from 'ctx/plugin';
