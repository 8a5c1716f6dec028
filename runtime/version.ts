export const VERSION = '0.4.0';

/**
 * The version of the plugin API (runtime/sdk, `ctx/plugin`), semver: a new export is a minor, a
 * changed or removed one a major. Plugins declare the range they support (`definePlugin({hostApi})`)
 * and the SDK package (packages/plugin-sdk) carries the same version; a test keeps them equal.
 */
export const PLUGIN_API_VERSION = '1.2.0';
