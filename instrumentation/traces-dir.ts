export * from '@afterstop/span-contract';
