/** Facts about how memory-engine is installed into the agents, shared by the light hook path and doctor. */

/** The plugin's id in Claude Code: plugin `memory-engine` of marketplace `memory-engine`. */
export const CLAUDE_PLUGIN_ID = 'memory-engine@memory-engine';

/** Node.js 22 or newer: better-sqlite3 13 and its prebuilt binaries need it (on 20 it crashes). */
export const NODE_MAJOR_NEEDED = 22;
