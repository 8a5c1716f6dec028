export * from 'ctx/testing';
