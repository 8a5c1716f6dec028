/* Generated from docs/openapi.json by clients/typescript/scripts/generate.mjs: run `npm run generate -w ctx-client`; never edit by hand. */
export interface paths {
    "/api/v1/admin/accounts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** every account (ROOT) */
        get: operations["getAdminAccounts"];
        put?: never;
        /** creates an account and its first ADMIN (ROOT) */
        post: operations["postAdminAccounts"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/admin/accounts/{account_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** deletes an account, its users and all its data (ROOT) */
        delete: operations["deleteAdminAccountsAccountId"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/admin/accounts/{account_id}/users": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** the users of an account (ROOT or its ADMIN) */
        get: operations["getAdminAccountsAccountIdUsers"];
        put?: never;
        /** adds a user to an account (ROOT or the account's ADMIN) */
        post: operations["postAdminAccountsAccountIdUsers"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/admin/accounts/{account_id}/users/{user_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** removes a user (ROOT or the account's ADMIN) */
        delete: operations["deleteAdminAccountsAccountIdUsersUserId"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/admin/accounts/{account_id}/users/{user_id}/key": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** issues a new key for a user; the old one stops working */
        post: operations["postAdminAccountsAccountIdUsersUserIdKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/admin/accounts/{account_id}/users/{user_id}/role": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /** changes a user's role (ROOT or the account's ADMIN) */
        put: operations["putAdminAccountsAccountIdUsersUserIdRole"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/admin/context-gateway/{path}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * GET on the context gateway's admin API for the caller's account (status and body passed through)
         * @description Forwarded to {CTX_GATEWAY_URL}/admin/{path} with the same method, query and body; the caller's credentials are replaced by the shared admin token and the caller's account. Only first segments overview, logs, guides, upstreams, policies, keys, users, tools are forwarded (others, and paths with "..", 404).
         */
        get: operations["getAdminContextGatewayPath"];
        /**
         * PUT on the context gateway's admin API for the caller's account (status and body passed through)
         * @description Forwarded to {CTX_GATEWAY_URL}/admin/{path} with the same method, query and body; the caller's credentials are replaced by the shared admin token and the caller's account. Only first segments overview, logs, guides, upstreams, policies, keys, users, tools are forwarded (others, and paths with "..", 404).
         */
        put: operations["putAdminContextGatewayPath"];
        /**
         * POST on the context gateway's admin API for the caller's account (status and body passed through)
         * @description Forwarded to {CTX_GATEWAY_URL}/admin/{path} with the same method, query and body; the caller's credentials are replaced by the shared admin token and the caller's account. Only first segments overview, logs, guides, upstreams, policies, keys, users, tools are forwarded (others, and paths with "..", 404).
         */
        post: operations["postAdminContextGatewayPath"];
        /**
         * DELETE on the context gateway's admin API for the caller's account (status and body passed through)
         * @description Forwarded to {CTX_GATEWAY_URL}/admin/{path} with the same method, query and body; the caller's credentials are replaced by the shared admin token and the caller's account. Only first segments overview, logs, guides, upstreams, policies, keys, users, tools are forwarded (others, and paths with "..", 404).
         */
        delete: operations["deleteAdminContextGatewayPath"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/admin/migrate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Migrate legacy agent and session data to user paths (or clean the legacy scopes up) as a legacy_migration task
         * @description An empty body is `migrate`. Preflight failures (an owner that is not a valid user id, a session whose owner cannot be resolved in a multi-user account) answer 400 before the task is created.
         */
        post: operations["postAdminMigrate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/code/expand": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * the source of one symbol of a file, with its line range
         * @description symbol is a bare name (the outermost, earliest symbol of that name) or a qualified one such as Class.method. Result: "# <uri>  L<start>-<end>  (<qualified name>)", a blank line, then those lines of the file. A non-ctx:// URI, an empty symbol, a directory, an unsupported language, a non-text file or an unknown symbol answer 200 with an "Error: ..." text.
         */
        post: operations["postCodeExpand"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/code/outline": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * the symbol outline of one imported source file
         * @description Result: "<uri>  [<language>, <n> lines]", a blank line, then one "<kind> <name>  L<start>-<end>" line per symbol, members indented under their class/interface/impl/module. Languages by extension: TypeScript/TSX, JavaScript, Python, Go, Rust, Java, C, C++. A non-ctx:// URI, a directory, an unsupported language or a non-text file answer 200 with an "Error: ..." text.
         */
        post: operations["postCodeOutline"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/code/search": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * symbols whose name contains the query, in a source file or every source file below a directory
         * @description Case-insensitive substring match on symbol names (on qualified names such as Class.method when the query has a dot). Result: "<n> matches for \"<query>\" (scanned <m> files)", then per file its URI and "  <name>  L<start>-<end>" lines. At most 200 source files are scanned, in walk order; when more exist the text ends with a prompt to narrow the URI. A non-ctx:// URI or an empty query answer 200 with an "Error: ..." text.
         */
        post: operations["postCodeSearch"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/compile": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * compiles source directories into a target directory with a skill, as a compile task (202)
         * @description The execution backend is the bundled one (an agent loop over the configured LLM; no args) or the one at CTX_EXECUTION_BACKEND_URL. Poll GET /api/v1/tasks/{task_id}; cancel with POST /api/v1/tasks/{task_id}/cancel.
         */
        post: operations["postCompile"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/content/abstract": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** a directory's L0 abstract, without its metadata header */
        get: operations["getContentAbstract"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/content/batch-write": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** writes many files under one root in one locked batch, with optional hash preconditions */
        post: operations["postContentBatchWrite"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/content/download": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** a file's raw bytes as an attachment */
        get: operations["getContentDownload"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/content/overview": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** a directory's L1 overview */
        get: operations["getContentOverview"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/content/read": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** a file's text (by URI or 32-hex record id), optionally a range of lines */
        get: operations["getContentRead"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/content/reindex": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** rebuilds vectors (and optionally L0/L1) under a URI as a task; with wait, answers when it finished */
        post: operations["postContentReindex"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/content/set_tags": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** sets k=v tags on a file or directory (replace or append; recursive for descendants) */
        post: operations["postContentSetTags"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/content/write": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** writes a file (replace, append or create); parents are created */
        post: operations["postContentWrite"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/debug/health": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** whether storage answers a read */
        get: operations["getDebugHealth"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/fs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** removes a file or directory (idempotent; recursive for a non-empty directory) */
        delete: operations["deleteFs"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/fs/access": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** sets who may read an entry under ctx://resources (null lifts the restriction; ROOT or ADMIN) */
        post: operations["postFsAccess"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/fs/attrs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** context type and tags (and memory fields) of a node */
        get: operations["getFsAttrs"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/fs/attrs/set_tags": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** sets k=v tags (same as content/set_tags) */
        post: operations["postFsAttrsSetTags"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/fs/ls": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** lists a directory (recursive, paged, sorted directories first) */
        get: operations["getFsLs"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/fs/mkdir": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** creates a directory and its parents (existing: unchanged); writes its L0 */
        post: operations["postFsMkdir"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/fs/mv": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** moves a file or directory */
        post: operations["postFsMv"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/fs/stat": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** a file's or directory's metadata (by URI or 32-hex record id) */
        get: operations["getFsStat"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/fs/tree": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** a directory tree to level_limit levels, entries with rel_path */
        get: operations["getFsTree"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/observer/lock": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** the lock observer component */
        get: operations["getObserverLock"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/observer/models": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** the models observer component */
        get: operations["getObserverModels"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/observer/queue": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** the queue observer component */
        get: operations["getObserverQueue"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/observer/retrieval": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** the retrieval observer component */
        get: operations["getObserverRetrieval"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/observer/system": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** every observer component and overall health */
        get: operations["getObserverSystem"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/observer/vectordb": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** the vectordb observer component */
        get: operations["getObserverVectordb"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/openapi.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** this API as an OpenAPI 3.1 document */
        get: operations["getOpenapiJson"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/pack/backup": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Back up the account's resources and every user's space as a zip pack */
        post: operations["postPackBackup"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/pack/export": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Export a directory as a zip pack (files/ + _ctxpack/manifest.json) */
        post: operations["postPackExport"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/pack/import": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Import an uploaded pack below a parent URI */
        post: operations["postPackImport"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/pack/restore": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Restore a backup pack into the account (merge-upsert with on_conflict=overwrite) */
        post: operations["postPackRestore"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/privacy-configs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** the caller's privacy-config categories */
        get: operations["getPrivacyConfigs"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/privacy-configs/{category}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** the target keys of a category */
        get: operations["getPrivacyConfigsCategory"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/privacy-configs/{category}/{target_key}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** a config's meta and current snapshot */
        get: operations["getPrivacyConfigsCategoryTargetKey"];
        put?: never;
        /** stores a new version (full replacement of values) and activates it */
        post: operations["postPrivacyConfigsCategoryTargetKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/privacy-configs/{category}/{target_key}/activate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** makes an earlier version the active one */
        post: operations["postPrivacyConfigsCategoryTargetKeyActivate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/privacy-configs/{category}/{target_key}/versions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** the version numbers of a config */
        get: operations["getPrivacyConfigsCategoryTargetKeyVersions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/privacy-configs/{category}/{target_key}/versions/{version}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** one version's snapshot */
        get: operations["getPrivacyConfigsCategoryTargetKeyVersionsVersion"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/relations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** what a URI is related to */
        get: operations["getRelations"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/relations/build_graph": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** writes a self-contained HTML graph of the relations under the given memory roots */
        post: operations["postRelationsBuildGraph"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/relations/link": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** relates a URI to one or more others, with a reason */
        post: operations["postRelationsLink"];
        /** removes one relation */
        delete: operations["deleteRelationsLink"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/resources": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * imports a file, a zipped tree, a web page or file, or a git repository as a resource
         * @description `path` is an http(s) URL (a page or file; a `.git` URL or a code-host `/owner/repo` URL is cloned) or, when the operator allows a root (`CTX_IMPORT_ROOTS`), an absolute host path; `temp_file_id` names an upload (a file, or a zip of a directory tree), and wins over `path`. The resource root is `to`, or `parent` (default `ctx://resources`) plus the source name made unique. Runs as an `add_resource` task (`task_id`); with `wait` the call returns when it is indexed (or after `timeout` seconds). `args.auth_config` `{username?, token}` authenticates a git clone and is never stored or returned.
         */
        post: operations["postResources"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/resources/info": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** what a resource root was imported from: source, reason, instruction, time, task (never credentials) */
        get: operations["getResourcesInfo"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/resources/temp_upload": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** stores an uploaded file (multipart part `file`) for a later add-resource */
        post: operations["postResourcesTempUpload"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/search/find": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** finds stored contexts by vector similarity (hierarchical, filtered by scope, type, tags and time) */
        post: operations["postSearchFind"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/search/glob": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** URIs under uri whose relative path matches a glob */
        post: operations["postSearchGlob"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/search/grep": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** lines matching a regular expression in files under uri */
        post: operations["postSearchGrep"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/search/search": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** find with session context and query planning (expanded queries) */
        post: operations["postSearchSearch"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/sessions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** the caller's sessions */
        get: operations["getSessions"];
        put?: never;
        /** creates a session (session_id generated when absent) */
        post: operations["postSessions"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/sessions/{session_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** session info; NOT_FOUND when absent unless auto_create */
        get: operations["getSessionsSessionId"];
        put?: never;
        post?: never;
        /** deletes a session with its messages and archives (extracted memories stay); absent is fine */
        delete: operations["deleteSessionsSessionId"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/sessions/{session_id}/archives/{archive_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** one completed archive: abstract, overview and messages */
        get: operations["getSessionsSessionIdArchivesArchiveId"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/sessions/{session_id}/commit": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** archives the live messages now and starts the session_commit task (summary and memory extraction) */
        post: operations["postSessionsSessionIdCommit"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/sessions/{session_id}/config": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /** updates memory_extraction_config and auto_commit_policy (merge; null disables the policy) */
        patch: operations["patchSessionsSessionIdConfig"];
        trace?: never;
    };
    "/api/v1/sessions/{session_id}/context": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** active messages plus archive overview and abstracts within token_budget */
        get: operations["getSessionsSessionIdContext"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/sessions/{session_id}/extract": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** extracts memories from the live messages now, without archiving them (the reference's manual extract) */
        post: operations["postSessionsSessionIdExtract"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/sessions/{session_id}/messages": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** adds a message (simple mode: content; parts mode: parts); creates the session when missing */
        post: operations["postSessionsSessionIdMessages"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/sessions/{session_id}/messages/batch": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** adds up to 100 messages in one atomic write */
        post: operations["postSessionsSessionIdMessagesBatch"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/sessions/{session_id}/used": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** records contexts and a skill the agent actually used (creates a missing session) */
        post: operations["postSessionsSessionIdUsed"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/skills": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** the caller's skills with their SKILL.md metadata */
        get: operations["getSkills"];
        put?: never;
        /**
         * adds (or replaces) a skill in the caller's ctx://user/{id}/skills/
         * @description `data` is a skill object (`name`, `description`, `content`, `allowed_tools`/`allowed-tools`, `tags`), a tool definition (an object with `inputSchema`; the name becomes kebab-case and SKILL.md is generated) or SKILL.md text; `temp_file_id` names an upload of a SKILL.md or a zipped skill directory. Give exactly one. Without `wait` the indexing runs as a task (`task_id`); with it the call waits (up to `timeout` seconds) and reports `queue_status`.
         */
        post: operations["postSkills"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/skills/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** one of the caller's skills: metadata, L0/L1, and on request SKILL.md and its file list */
        get: operations["getSkillsName"];
        put?: never;
        post?: never;
        /** removes one of the caller's skills (its directory and index records) */
        delete: operations["deleteSkillsName"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/snapshot/commit": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Commit the account's tree (or some paths of it) to a branch
         * @description paths null or absent: the whole account tree (ADMIN/ROOT); [] a no-op; a list: those URIs, directories recursively. Files matched by .ctxgitignore are left out and counted in `ignored`.
         */
        post: operations["postSnapshotCommit"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/snapshot/ignore": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The account's .ctxgitignore (not in the spec) */
        get: operations["getSnapshotIgnore"];
        /** Set the account's .ctxgitignore (gitignore syntax, paths relative to ctx://; not in the spec) */
        put: operations["putSnapshotIgnore"];
        post?: never;
        /** Delete the account's .ctxgitignore (not in the spec) */
        delete: operations["deleteSnapshotIgnore"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/snapshot/log": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Commits of a branch, newest first along first parents */
        get: operations["getSnapshotLog"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/snapshot/restore": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Restore a commit (or one directory of it) as a new commit on top of the branch head */
        post: operations["postSnapshotRestore"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/snapshot/show": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A commit’s metadata, or with `path` the raw bytes of one file in it
         * @description With `path`: `application/octet-stream` without the envelope, headers X-Snapshot-Oid (blob id) and X-Snapshot-Size (bytes).
         */
        get: operations["getSnapshotShow"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/system/backend/sync-retry": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** moves failed index work under uri back onto its queues (ROOT or ADMIN) */
        post: operations["postSystemBackendSyncRetry"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/system/backend/sync-status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** index work still pending or failed under uri (ROOT or ADMIN) */
        post: operations["postSystemBackendSyncStatus"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/system/consistency": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** per shard this node replicates, its applied sequence and a digest of the shard's keys; cluster=true compares every replica (ROOT or ADMIN; cluster mode) */
        get: operations["getSystemConsistency"];
        put?: never;
        /** index records missing for what lies under uri */
        post: operations["postSystemConsistency"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/system/status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** whether the service is initialized, the caller, the cluster (docs/scale-out.md) and which core runs */
        get: operations["getSystemStatus"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/system/sync/{sync_path}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** sync-status for the URI path ctx://{sync_path} */
        get: operations["getSystemSyncSyncPath"];
        put?: never;
        /** sync-retry for ctx://{sync_path} (the path ends in /retry) */
        post: operations["postSystemSyncSyncPath"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/system/wait": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** waits until the Semantic and Embedding queues are drained (or timeout seconds pass) */
        post: operations["postSystemWait"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/tasks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** the caller's tasks, newest first */
        get: operations["getTasks"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/tasks/{task_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** a task record; 404 when missing, expired or owned by someone else */
        get: operations["getTasksTaskId"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/tasks/{task_id}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** cancels a task the caller owns (status cancelling or cancelled) */
        post: operations["postTasksTaskIdCancel"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/watches": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** watch tasks the caller may see (their own; an ADMIN all of the account) */
        get: operations["getWatches"];
        put?: never;
        post?: never;
        /** deletes the watch of ?to_uri= (the imported resource stays) */
        delete: operations["deleteWatches"];
        options?: never;
        head?: never;
        /**
         * changes the watch of ?to_uri=: watch_interval, is_active (pause/resume), reason, instruction
         * @description Fields not given keep their values; unknown fields are refused (400). Pausing (`is_active: false`) and resuming keep `watch_interval` and the phase of `next_execution_time`.
         */
        patch: operations["patchWatches"];
        trace?: never;
    };
    "/api/v1/watches/{task_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** one watch task; a to_uri given must name the same watch */
        get: operations["getWatchesTaskId"];
        put?: never;
        post?: never;
        /** deletes a watch (the imported resource stays) */
        delete: operations["deleteWatchesTaskId"];
        options?: never;
        head?: never;
        /**
         * changes a watch: watch_interval, is_active (pause/resume), reason, instruction
         * @description Fields not given keep their values; unknown fields are refused (400). Pausing (`is_active: false`) and resuming keep `watch_interval` and the phase of `next_execution_time`.
         */
        patch: operations["patchWatchesTaskId"];
        trace?: never;
    };
    "/api/v1/watches/{task_id}/trigger": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * runs a watch now (re-imports its source in the background)
         * @description Returns once the run is scheduled, before the re-import runs; its outcome is the watch's `last_task_id`, `last_status` and `last_error` afterwards. The cadence is not moved; a paused watch runs once and stays paused; a run still going is not doubled.
         */
        post: operations["postWatchesTaskIdTrigger"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/watches/trigger": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * runs the watch of ?to_uri= now (re-imports its source in the background)
         * @description Returns once the run is scheduled, before the re-import runs; its outcome is the watch's `last_task_id`, `last_status` and `last_error` afterwards. The cadence is not moved; a paused watch runs once and stays paused; a run still going is not doubled.
         */
        post: operations["postWatchesTrigger"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/bot/v1/chat": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** one chat turn: the answer, its events, the relevant contexts and token usage (no envelope) */
        post: operations["postBotV1Chat"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/bot/v1/chat/stream": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * one chat turn as Server-Sent Events (`data: {event, data, timestamp}`); X-Bot-Session-ID carries the session
         * @description Events: iteration, reasoning, reasoning_delta, tool_call, tool_result, content_delta, and last response (data: content, response_id, session_id, token_usage). A failure after the stream started ends it with a response event whose data carries error.
         */
        post: operations["postBotV1ChatStream"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/bot/v1/compile": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * retired: use POST /api/v1/compile (202 with a compile task)
         * @deprecated
         */
        post: operations["postBotV1Compile"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/bot/v1/compile/{task_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * retired: use GET /api/v1/tasks/{task_id}
         * @deprecated
         */
        get: operations["getBotV1CompileTaskId"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/bot/v1/compile/{task_id}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * retired: use POST /api/v1/tasks/{task_id}/cancel
         * @deprecated
         */
        post: operations["postBotV1CompileTaskIdCancel"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/bot/v1/feedback": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** feedback on an answer: thumb_up, thumb_down, or rating with feedback_score (no envelope) */
        post: operations["postBotV1Feedback"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/bot/v1/health": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** bot chat health (no envelope); 503 when the bot is disabled or has no LLM */
        get: operations["getBotV1Health"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** the web console (single-page app; sign in with an API key) */
        get: operations["getConsole"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/{path}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** the console's hashed assets (immutable); any other path without an extension is the app */
        get: operations["getConsolePath"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/whoami": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** the caller's identity: account, user and role (what the console shows and which pages it offers) */
        get: operations["getConsoleWhoami"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/health": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** liveness; auth_mode appears when credentials are supplied */
        get: operations["getHealth"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/mcp": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** MCP Streamable HTTP: the session's server-to-client event stream (resource updates) */
        get: operations["getMcp"];
        put?: never;
        /**
         * MCP Streamable HTTP: JSON-RPC messages from the client (initialize opens a session bound to the caller)
         * @description The Model Context Protocol endpoint (docs/mcp.md). Send `Accept: application/json, text/event-stream`; after `initialize`, send the `Mcp-Session-Id` the server returned. A session is usable only by the identity that opened it.
         */
        post: operations["postMcp"];
        /** MCP Streamable HTTP: ends the session named by Mcp-Session-Id */
        delete: operations["deleteMcp"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Prometheus metrics (text exposition format); guarded by CTX_METRICS, not by API keys
         * @description CTX_METRICS=loopback (default) answers only callers on 127.0.0.0/8 or ::1; `token` needs `Authorization: Bearer <CTX_METRICS_TOKEN>`; `off` answers 404. Labels never carry URIs, account or user ids (unless CTX_METRICS_ACCOUNT_LABEL=true adds an account label to the request counter).
         */
        get: operations["getMetrics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/ready": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** readiness of every subsystem; 503 when one that is configured is not ready */
        get: operations["getReady"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/runtime/v1/tasks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** starts a compile session on the bundled execution backend (202 {session_id}); Idempotency-Key reuses a session */
        post: operations["postRuntimeV1Tasks"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/runtime/v1/tasks/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** cancels a compile session (cancelling until stopped; terminal sessions answer as they are) */
        post: operations["postRuntimeV1TasksCancel"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/runtime/v1/tasks/status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** a compile session's {status, stage, error, meta, result} (the owner's only) */
        post: operations["postRuntimeV1TasksStatus"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        ErrorEnvelope: {
            error: {
                /** @enum {string} */
                code: "INVALID_ARGUMENT" | "INVALID_URI" | "UNAUTHENTICATED" | "PERMISSION_DENIED" | "NOT_FOUND" | "METHOD_NOT_ALLOWED" | "CONFLICT" | "FAILED_PRECONDITION" | "PAYLOAD_TOO_LARGE" | "UNSUPPORTED_MEDIA_TYPE" | "PROCESSING_ERROR" | "RESOURCE_EXHAUSTED" | "INTERNAL" | "UNIMPLEMENTED" | "UNAVAILABLE" | "DEADLINE_EXCEEDED";
                /** @description the offending field (`field`) or resource (`resource`), and what else helps the client fix the request */
                details?: Record<string, never>;
                message: string;
            };
            /** @constant */
            status: "error";
            telemetry?: components["schemas"]["Telemetry"];
            /** @description seconds the server spent on the request */
            time: number;
        };
        /** @description present when the request asked for it (`telemetry: true` or `{summary: true}` in the body) */
        Telemetry: {
            operation_id?: string;
            summary?: {
                duration_ms?: number;
            };
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    getAdminAccounts: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description every account (ROOT) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            account_id: string;
                            admin_user_id?: string;
                            created_at?: string;
                        }[];
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PERMISSION_DENIED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    postAdminAccounts: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    account_id: string;
                    admin_user_id: string;
                };
            };
        };
        responses: {
            /** @description creates an account and its first ADMIN (ROOT) */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            account_id: string;
                            admin_user_id: string;
                            user_key: string;
                        };
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description INVALID_ARGUMENT */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PERMISSION_DENIED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description CONFLICT */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "CONFLICT";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNSUPPORTED_MEDIA_TYPE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    deleteAdminAccountsAccountId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                account_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description deletes an account, its users and all its data (ROOT) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            account_id: string;
                            deleted: boolean;
                            deleted_entries: number;
                            deleted_users: number;
                        };
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description INVALID_ARGUMENT */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PERMISSION_DENIED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "NOT_FOUND";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getAdminAccountsAccountIdUsers: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                account_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the users of an account (ROOT or its ADMIN) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            account_id: string;
                            created_at: string;
                            role: "ADMIN" | "USER";
                            user_id: string;
                        }[];
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PERMISSION_DENIED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "NOT_FOUND";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    postAdminAccountsAccountIdUsers: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                account_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @description user or admin, in any case
                     * @default USER
                     */
                    role?: string;
                    user_id: string;
                };
            };
        };
        responses: {
            /** @description adds a user to an account (ROOT or the account's ADMIN) */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            account_id: string;
                            role: "ADMIN" | "USER";
                            user_id: string;
                            user_key: string;
                        };
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description INVALID_ARGUMENT */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PERMISSION_DENIED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "NOT_FOUND";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description CONFLICT */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "CONFLICT";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNSUPPORTED_MEDIA_TYPE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    deleteAdminAccountsAccountIdUsersUserId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                account_id: string;
                user_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description removes a user (ROOT or the account's ADMIN) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            account_id: string;
                            deleted: boolean;
                            user_id: string;
                        };
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description INVALID_ARGUMENT */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PERMISSION_DENIED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "NOT_FOUND";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    postAdminAccountsAccountIdUsersUserIdKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                account_id: string;
                user_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description issues a new key for a user; the old one stops working */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            account_id: string;
                            user_id: string;
                            user_key: string;
                        };
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description INVALID_ARGUMENT */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PERMISSION_DENIED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "NOT_FOUND";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNSUPPORTED_MEDIA_TYPE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    putAdminAccountsAccountIdUsersUserIdRole: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                account_id: string;
                user_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description user or admin, in any case */
                    role: string;
                };
            };
        };
        responses: {
            /** @description changes a user's role (ROOT or the account's ADMIN) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            account_id: string;
                            created_at: string;
                            role: "ADMIN" | "USER";
                            user_id: string;
                        };
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description INVALID_ARGUMENT */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PERMISSION_DENIED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "NOT_FOUND";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNSUPPORTED_MEDIA_TYPE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getAdminContextGatewayPath: {
        parameters: {
            query?: {
                query?: {
                    [key: string]: string | string[];
                };
            };
            header?: never;
            path: {
                /** @description the rest of the path (may contain /) */
                path: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the gateway's own status and body, unchanged */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
                };
            };
            /** @description INVALID_ARGUMENT */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PERMISSION_DENIED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "NOT_FOUND";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    putAdminContextGatewayPath: {
        parameters: {
            query?: {
                query?: {
                    [key: string]: string | string[];
                };
            };
            header?: never;
            path: {
                /** @description the rest of the path (may contain /) */
                path: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": string;
            };
        };
        responses: {
            /** @description the gateway's own status and body, unchanged */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
                };
            };
            /** @description INVALID_ARGUMENT */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PERMISSION_DENIED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "NOT_FOUND";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    postAdminContextGatewayPath: {
        parameters: {
            query?: {
                query?: {
                    [key: string]: string | string[];
                };
            };
            header?: never;
            path: {
                /** @description the rest of the path (may contain /) */
                path: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": string;
            };
        };
        responses: {
            /** @description the gateway's own status and body, unchanged */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
                };
            };
            /** @description INVALID_ARGUMENT */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PERMISSION_DENIED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "NOT_FOUND";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    deleteAdminContextGatewayPath: {
        parameters: {
            query?: {
                query?: {
                    [key: string]: string | string[];
                };
            };
            header?: never;
            path: {
                /** @description the rest of the path (may contain /) */
                path: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": string;
            };
        };
        responses: {
            /** @description the gateway's own status and body, unchanged */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
                };
            };
            /** @description INVALID_ARGUMENT */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PERMISSION_DENIED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "NOT_FOUND";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    postAdminMigrate: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @default migrate */
                    action?: "migrate" | "cleanup";
                };
            };
        };
        responses: {
            /** @description Migrate legacy agent and session data to user paths (or clean the legacy scopes up) as a legacy_migration task */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            task_id: string;
                        };
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description INVALID_ARGUMENT */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PERMISSION_DENIED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNSUPPORTED_MEDIA_TYPE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    postCodeExpand: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description symbol name, bare or qualified (Class.method) */
                    symbol: string;
                    /** @description ctx:// URI of a source file */
                    uri: string;
                };
            };
        };
        responses: {
            /** @description the source of one symbol of a file, with its line range */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description agent-facing text; a business failure starts with "Error:" */
                        result: string;
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description INVALID_ARGUMENT, INVALID_URI */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT" | "INVALID_URI";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PERMISSION_DENIED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "NOT_FOUND";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNSUPPORTED_MEDIA_TYPE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    postCodeOutline: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description ctx:// URI of a source file */
                    uri: string;
                };
            };
        };
        responses: {
            /** @description the symbol outline of one imported source file */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description agent-facing text; a business failure starts with "Error:" */
                        result: string;
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description INVALID_ARGUMENT, INVALID_URI */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT" | "INVALID_URI";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PERMISSION_DENIED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "NOT_FOUND";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNSUPPORTED_MEDIA_TYPE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    postCodeSearch: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description non-empty part of a symbol name */
                    query: string;
                    /** @description ctx:// URI of a source file or a directory (searched recursively) */
                    uri: string;
                };
            };
        };
        responses: {
            /** @description symbols whose name contains the query, in a source file or every source file below a directory */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description agent-facing text; a business failure starts with "Error:" */
                        result: string;
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description INVALID_ARGUMENT, INVALID_URI */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT" | "INVALID_URI";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PERMISSION_DENIED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "NOT_FOUND";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNSUPPORTED_MEDIA_TYPE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    postCompile: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description backend arguments (model_name...); the bundled backend takes none */
                    args?: {
                        [key: string]: unknown;
                    };
                    /** @description source directory URIs */
                    from: string[];
                    instruction?: string;
                    /** @description skill directory or its SKILL.md URI */
                    skill: string;
                    /** @description target directory URI */
                    to: string;
                };
            };
        };
        responses: {
            /** @description compiles source directories into a target directory with a skill, as a compile task (202) */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            resource_id: string;
                            stage: string;
                            status: string;
                            task_id: string;
                            task_type: string;
                        };
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description INVALID_ARGUMENT, INVALID_URI */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT" | "INVALID_URI";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PERMISSION_DENIED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "NOT_FOUND";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNSUPPORTED_MEDIA_TYPE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getContentAbstract: {
        parameters: {
            query: {
                uri: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description a directory's L0 abstract, without its metadata header */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: string;
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description INVALID_ARGUMENT, INVALID_URI */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT" | "INVALID_URI";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PERMISSION_DENIED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "NOT_FOUND";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    postContentBatchWrite: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    operations: ({
                        content?: string;
                        content_base64?: string;
                        mode?: "replace" | "append" | "create" | "upsert";
                        precondition?: {
                            base_hash?: string;
                            kind: "create_if_absent" | "replace_if_hash";
                        } & ({
                            /** @constant */
                            kind?: "create_if_absent";
                        } | {
                            /** @constant */
                            kind?: "replace_if_hash";
                        });
                        uri: string;
                    } & ((unknown | unknown) & unknown))[];
                    root_uri: string;
                    timeout?: number | null;
                    /** @default true */
                    wait?: boolean;
                };
            };
        };
        responses: {
            /** @description writes many files under one root in one locked batch, with optional hash preconditions */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            created: string[];
                            queue_status?: {
                                Embedding?: {
                                    error_count: number;
                                    errors: string[];
                                    processed: number;
                                };
                                Semantic?: {
                                    error_count: number;
                                    errors: string[];
                                    processed: number;
                                };
                            };
                            root_uri: string;
                            semantic_status: string;
                            unchanged: string[];
                            updated: string[];
                            vector_status: string;
                        };
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description INVALID_ARGUMENT, INVALID_URI */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT" | "INVALID_URI";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PERMISSION_DENIED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "NOT_FOUND";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description CONFLICT */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "CONFLICT";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNSUPPORTED_MEDIA_TYPE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PROCESSING_ERROR */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PROCESSING_ERROR";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description DEADLINE_EXCEEDED */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "DEADLINE_EXCEEDED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getContentDownload: {
        parameters: {
            query: {
                uri: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the file's bytes, with Content-Disposition: attachment */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/octet-stream": string;
                };
            };
            /** @description INVALID_ARGUMENT, INVALID_URI */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT" | "INVALID_URI";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PERMISSION_DENIED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "NOT_FOUND";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getContentOverview: {
        parameters: {
            query: {
                uri: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description a directory's L1 overview */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: string;
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description INVALID_ARGUMENT, INVALID_URI */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT" | "INVALID_URI";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PERMISSION_DENIED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "NOT_FOUND";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getContentRead: {
        parameters: {
            query: {
                limit?: number;
                offset?: number;
                raw?: boolean;
                uri: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description a file's text (by URI or 32-hex record id), optionally a range of lines */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: string;
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description INVALID_ARGUMENT, INVALID_URI */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT" | "INVALID_URI";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PERMISSION_DENIED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "NOT_FOUND";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    postContentReindex: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @default vectors_only */
                    mode?: "vectors_only" | "semantic_and_vectors";
                    /** @default false */
                    recursive?: boolean;
                    uri: string;
                    /** @default false */
                    wait?: boolean;
                };
            };
        };
        responses: {
            /** @description rebuilds vectors (and optionally L0/L1) under a URI as a task; with wait, answers when it finished */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            mode?: string;
                            recursive?: boolean;
                            status: string;
                            task_id: string;
                            uri?: string;
                        };
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description INVALID_ARGUMENT, INVALID_URI */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT" | "INVALID_URI";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PERMISSION_DENIED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "NOT_FOUND";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description CONFLICT */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "CONFLICT";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNSUPPORTED_MEDIA_TYPE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PROCESSING_ERROR */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PROCESSING_ERROR";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    postContentSetTags: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @default replace */
                    mode?: "replace" | "append";
                    /** @default false */
                    recursive?: boolean;
                    tags: string[];
                    uri: string;
                };
            };
        };
        responses: {
            /** @description sets k=v tags on a file or directory (replace or append; recursive for descendants) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            context_type: string;
                            failed_count: number;
                            mode: "replace" | "append";
                            recursive: boolean;
                            root_uri: string;
                            skipped_count: number;
                            success_count: number;
                            tags: string[];
                            updated_uris: string[];
                            uri: string;
                        };
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description INVALID_ARGUMENT, INVALID_URI */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT" | "INVALID_URI";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PERMISSION_DENIED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "NOT_FOUND";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNSUPPORTED_MEDIA_TYPE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    postContentWrite: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    content: string;
                    /** @default replace */
                    mode?: "replace" | "append" | "create";
                    /** @default replace */
                    tag_mode?: "replace" | "append";
                    tags?: string[];
                    timeout?: number | null;
                    uri: string;
                    /** @default false */
                    wait?: boolean;
                };
            };
        };
        responses: {
            /** @description writes a file (replace, append or create); parents are created */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            content_updated: boolean;
                            context_type: string;
                            mode: string;
                            queue_status?: {
                                Embedding?: {
                                    error_count: number;
                                    errors: string[];
                                    processed: number;
                                };
                                Semantic?: {
                                    error_count: number;
                                    errors: string[];
                                    processed: number;
                                };
                            };
                            root_uri: string;
                            semantic_status: "queued" | "complete" | "deferred";
                            uri: string;
                            vector_status: string;
                            written_bytes: number;
                        };
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description INVALID_ARGUMENT, INVALID_URI */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT" | "INVALID_URI";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PERMISSION_DENIED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "NOT_FOUND";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description CONFLICT */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "CONFLICT";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNSUPPORTED_MEDIA_TYPE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PROCESSING_ERROR */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PROCESSING_ERROR";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description DEADLINE_EXCEEDED */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "DEADLINE_EXCEEDED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getDebugHealth: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description whether storage answers a read */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            healthy: boolean;
                        };
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    deleteFs: {
        parameters: {
            query: {
                recursive?: boolean;
                uri: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description removes a file or directory (idempotent; recursive for a non-empty directory) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            deleted_count?: number;
                            uri: string;
                        };
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description INVALID_ARGUMENT, INVALID_URI */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT" | "INVALID_URI";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PERMISSION_DENIED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "NOT_FOUND";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description CONFLICT */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "CONFLICT";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description FAILED_PRECONDITION */
            412: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "FAILED_PRECONDITION";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    postFsAccess: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    readers: string[] | null;
                    uri: string;
                };
            };
        };
        responses: {
            /** @description sets who may read an entry under ctx://resources (null lifts the restriction; ROOT or ADMIN) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            readers: string[] | null;
                            uri: string;
                        };
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description INVALID_ARGUMENT, INVALID_URI */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT" | "INVALID_URI";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PERMISSION_DENIED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "NOT_FOUND";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNSUPPORTED_MEDIA_TYPE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getFsAttrs: {
        parameters: {
            query: {
                uri: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description context type and tags (and memory fields) of a node */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            attrs: {
                                memory?: {
                                    [key: string]: unknown;
                                };
                                tags: string[];
                            };
                            context_type: string;
                            uri: string;
                        };
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description INVALID_ARGUMENT, INVALID_URI */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT" | "INVALID_URI";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PERMISSION_DENIED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "NOT_FOUND";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    postFsAttrsSetTags: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @default replace */
                    mode?: "replace" | "append";
                    /** @default false */
                    recursive?: boolean;
                    tags: string[];
                    telemetry?: boolean | {
                        summary?: boolean;
                    };
                    uri: string;
                };
            };
        };
        responses: {
            /** @description sets k=v tags (same as content/set_tags) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            context_type: string;
                            failed_count: number;
                            mode: "replace" | "append";
                            recursive: boolean;
                            root_uri: string;
                            skipped_count: number;
                            success_count: number;
                            tags: string[];
                            updated_uris: string[];
                            uri: string;
                        };
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description INVALID_ARGUMENT, INVALID_URI */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT" | "INVALID_URI";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PERMISSION_DENIED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "NOT_FOUND";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNSUPPORTED_MEDIA_TYPE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getFsLs: {
        parameters: {
            query: {
                abs_limit?: number;
                extra_fields?: ("locked" | "id" | "count")[];
                include_tags?: boolean;
                limit?: number;
                node_limit?: number;
                offset?: number;
                output?: "agent" | "original";
                recursive?: boolean;
                show_all_hidden?: boolean;
                simple?: boolean;
                sort_by?: "name" | "mtime";
                sort_order?: "asc" | "desc";
                tags?: string[];
                uri: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description lists a directory (recursive, paged, sorted directories first) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: ({
                            /** @constant */
                            access?: "denied";
                            isDir: boolean;
                            meta?: {
                                [key: string]: unknown;
                            };
                            mode?: number;
                            modTime?: string;
                            name: string;
                            rel_path?: string;
                            size?: number;
                            uri: string;
                        } | string)[];
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description INVALID_ARGUMENT, INVALID_URI */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT" | "INVALID_URI";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PERMISSION_DENIED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "NOT_FOUND";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    postFsMkdir: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    description?: string;
                    telemetry?: boolean | {
                        summary?: boolean;
                    };
                    uri: string;
                };
            };
        };
        responses: {
            /** @description creates a directory and its parents (existing: unchanged); writes its L0 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            uri: string;
                        };
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description INVALID_ARGUMENT, INVALID_URI */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT" | "INVALID_URI";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PERMISSION_DENIED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "NOT_FOUND";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description CONFLICT */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "CONFLICT";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNSUPPORTED_MEDIA_TYPE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    postFsMv: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    from_uri: string;
                    telemetry?: boolean | {
                        summary?: boolean;
                    };
                    to_uri: string;
                };
            };
        };
        responses: {
            /** @description moves a file or directory */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            from: string;
                            to: string;
                        };
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description INVALID_ARGUMENT, INVALID_URI */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT" | "INVALID_URI";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PERMISSION_DENIED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "NOT_FOUND";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description CONFLICT */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "CONFLICT";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNSUPPORTED_MEDIA_TYPE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getFsStat: {
        parameters: {
            query: {
                uri: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description a file's or directory's metadata (by URI or 32-hex record id) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            /** @description directories: estimated items under it */
                            count?: number;
                            /** @description files: the level-2 record id */
                            id?: string;
                            isDir: boolean;
                            isLocked: boolean;
                            mode: number;
                            modTime: string;
                            name: string;
                            size: number;
                            uri: string;
                        };
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description INVALID_ARGUMENT, INVALID_URI */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT" | "INVALID_URI";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PERMISSION_DENIED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "NOT_FOUND";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getFsTree: {
        parameters: {
            query: {
                abs_limit?: number;
                extra_fields?: ("locked" | "id" | "count")[];
                include_tags?: boolean;
                level_limit?: number;
                limit?: number;
                node_limit?: number;
                offset?: number;
                output?: "agent" | "original";
                show_all_hidden?: boolean;
                sort_by?: "name" | "mtime";
                sort_order?: "asc" | "desc";
                tags?: string[];
                uri: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description a directory tree to level_limit levels, entries with rel_path */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: ({
                            /** @constant */
                            access?: "denied";
                            isDir: boolean;
                            meta?: {
                                [key: string]: unknown;
                            };
                            mode?: number;
                            modTime?: string;
                            name: string;
                            rel_path?: string;
                            size?: number;
                            uri: string;
                        } | string)[];
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description INVALID_ARGUMENT, INVALID_URI */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT" | "INVALID_URI";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PERMISSION_DENIED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "NOT_FOUND";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getObserverLock: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the lock observer component */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            has_errors: boolean;
                            is_healthy: boolean;
                            name: string;
                            /** @description a text table */
                            status: string;
                        };
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getObserverModels: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the models observer component */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            has_errors: boolean;
                            is_healthy: boolean;
                            name: string;
                            /** @description a text table */
                            status: string;
                        };
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getObserverQueue: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the queue observer component */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            has_errors: boolean;
                            is_healthy: boolean;
                            name: string;
                            /** @description a text table */
                            status: string;
                        };
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getObserverRetrieval: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the retrieval observer component */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            has_errors: boolean;
                            is_healthy: boolean;
                            name: string;
                            /** @description a text table */
                            status: string;
                        };
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getObserverSystem: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description every observer component and overall health */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            components: {
                                [key: string]: {
                                    has_errors: boolean;
                                    is_healthy: boolean;
                                    name: string;
                                    /** @description a text table */
                                    status: string;
                                };
                            };
                            errors: string[];
                            is_healthy: boolean;
                        };
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getObserverVectordb: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the vectordb observer component */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            has_errors: boolean;
                            is_healthy: boolean;
                            name: string;
                            /** @description a text table */
                            status: string;
                        };
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getOpenapiJson: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the OpenAPI 3.1 document (no envelope) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    postPackBackup: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @default false */
                    include_vectors?: boolean;
                };
            };
        };
        responses: {
            /** @description the backup pack, streamed, with Content-Disposition */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/zip": string;
                };
            };
            /** @description INVALID_ARGUMENT */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PERMISSION_DENIED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNSUPPORTED_MEDIA_TYPE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    postPackExport: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @default false */
                    include_vectors?: boolean;
                    uri: string;
                };
            };
        };
        responses: {
            /** @description the pack, streamed */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/zip": string;
                };
            };
            /** @description INVALID_ARGUMENT, INVALID_URI */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT" | "INVALID_URI";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PERMISSION_DENIED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "NOT_FOUND";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNSUPPORTED_MEDIA_TYPE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    postPackImport: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @default fail */
                    on_conflict?: "fail" | "overwrite" | "skip";
                    parent: string;
                    telemetry?: boolean | {
                        summary?: boolean;
                    };
                    temp_file_id: string;
                    /** @default auto */
                    vector_mode?: "auto" | "recompute" | "require";
                };
            };
        };
        responses: {
            /** @description Import an uploaded pack below a parent URI */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            uri: string;
                        };
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description INVALID_ARGUMENT, INVALID_URI */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT" | "INVALID_URI";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PERMISSION_DENIED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "NOT_FOUND";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description CONFLICT */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "CONFLICT";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNSUPPORTED_MEDIA_TYPE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    postPackRestore: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @default fail */
                    on_conflict?: "fail" | "overwrite" | "skip";
                    telemetry?: boolean | {
                        summary?: boolean;
                    };
                    temp_file_id: string;
                    /** @default auto */
                    vector_mode?: "auto" | "recompute" | "require";
                };
            };
        };
        responses: {
            /** @description Restore a backup pack into the account (merge-upsert with on_conflict=overwrite) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            uri: string;
                        };
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description INVALID_ARGUMENT, INVALID_URI */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT" | "INVALID_URI";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PERMISSION_DENIED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "NOT_FOUND";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description CONFLICT */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "CONFLICT";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNSUPPORTED_MEDIA_TYPE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getPrivacyConfigs: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the caller's privacy-config categories */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: string[];
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getPrivacyConfigsCategory: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                category: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the target keys of a category */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: string[];
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description INVALID_ARGUMENT */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getPrivacyConfigsCategoryTargetKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                category: string;
                target_key: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description a config's meta and current snapshot */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            current: {
                                category: string;
                                change_reason: string;
                                created_at: string;
                                created_by: string;
                                target_key: string;
                                values: {
                                    [key: string]: unknown;
                                };
                                version: number;
                            };
                            meta: {
                                active_version: number;
                                category: string;
                                created_at: string;
                                labels: {
                                    [key: string]: unknown;
                                } | null;
                                last_accessed_at: string | null;
                                latest_version: number;
                                target_key: string;
                                updated_at: string;
                                updated_by: string;
                            };
                        };
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description INVALID_ARGUMENT */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "NOT_FOUND";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    postPrivacyConfigsCategoryTargetKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                category: string;
                target_key: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @default  */
                    change_reason?: string;
                    /** @default null */
                    labels?: {
                        [key: string]: unknown;
                    } | null;
                    /** @description key to value: the full replacement snapshot */
                    values: {
                        [key: string]: unknown;
                    };
                };
            };
        };
        responses: {
            /** @description stores a new version (full replacement of values) and activates it */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            category: string;
                            change_reason: string;
                            created_at: string;
                            created_by: string;
                            target_key: string;
                            values: {
                                [key: string]: unknown;
                            };
                            version: number;
                        };
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description INVALID_ARGUMENT */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNSUPPORTED_MEDIA_TYPE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    postPrivacyConfigsCategoryTargetKeyActivate: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                category: string;
                target_key: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    version: number;
                };
            };
        };
        responses: {
            /** @description makes an earlier version the active one */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            category: string;
                            change_reason: string;
                            created_at: string;
                            created_by: string;
                            target_key: string;
                            values: {
                                [key: string]: unknown;
                            };
                            version: number;
                        };
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description INVALID_ARGUMENT */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "NOT_FOUND";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNSUPPORTED_MEDIA_TYPE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getPrivacyConfigsCategoryTargetKeyVersions: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                category: string;
                target_key: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the version numbers of a config */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: number[];
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description INVALID_ARGUMENT */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "NOT_FOUND";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getPrivacyConfigsCategoryTargetKeyVersionsVersion: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                category: string;
                target_key: string;
                version: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description one version's snapshot */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            category: string;
                            change_reason: string;
                            created_at: string;
                            created_by: string;
                            target_key: string;
                            values: {
                                [key: string]: unknown;
                            };
                            version: number;
                        };
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description INVALID_ARGUMENT */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "NOT_FOUND";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getRelations: {
        parameters: {
            query: {
                uri: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description what a URI is related to */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            reason: string;
                            uri: string;
                        }[];
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description INVALID_ARGUMENT, INVALID_URI */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT" | "INVALID_URI";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PERMISSION_DENIED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "NOT_FOUND";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    postRelationsBuildGraph: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    output_uri: string;
                    space_uris: string[];
                };
            };
        };
        responses: {
            /** @description writes a self-contained HTML graph of the relations under the given memory roots */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            graph_uri: string;
                        };
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description INVALID_ARGUMENT, INVALID_URI */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT" | "INVALID_URI";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PERMISSION_DENIED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "NOT_FOUND";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNSUPPORTED_MEDIA_TYPE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    postRelationsLink: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    from_uri: string;
                    /** @default  */
                    reason?: string;
                    to_uris: string | string[];
                };
            };
        };
        responses: {
            /** @description relates a URI to one or more others, with a reason */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            from: string;
                            to: string | string[];
                        };
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description INVALID_ARGUMENT, INVALID_URI */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT" | "INVALID_URI";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PERMISSION_DENIED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "NOT_FOUND";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNSUPPORTED_MEDIA_TYPE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    deleteRelationsLink: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    from_uri: string;
                    to_uri: string;
                };
            };
        };
        responses: {
            /** @description removes one relation */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            from: string;
                            to: string;
                        };
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description INVALID_ARGUMENT, INVALID_URI */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT" | "INVALID_URI";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PERMISSION_DENIED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "NOT_FOUND";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    postResources: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @default {} */
                    args?: {
                        [key: string]: unknown;
                    };
                    /** @default false */
                    create_parent?: boolean;
                    /** @default true */
                    directly_upload_media?: boolean;
                    exclude?: string | null;
                    ignore_dirs?: string | null;
                    include?: string | null;
                    /** @default  */
                    instruction?: string;
                    parent?: string | null;
                    path?: string | null;
                    preserve_structure?: boolean | null;
                    /** @description `semantic_and_vectors` (default): L0/L1 text and vectors; `vectors_only`: what changed is embedded, no L0/L1 text is generated */
                    processing_mode?: ("semantic_and_vectors" | "vectors_only") | null;
                    /** @default  */
                    reason?: string;
                    source_name?: string | null;
                    /** @default false */
                    strict?: boolean;
                    /** @default replace */
                    tag_mode?: "replace" | "append";
                    tags?: string[] | null;
                    telemetry?: boolean | {
                        summary?: boolean;
                    };
                    temp_file_id?: string | null;
                    timeout?: number | null;
                    to?: string | null;
                    /** @default false */
                    wait?: boolean;
                    /**
                     * @description minutes between re-imports into the same root; > 0 creates (or updates) the watch of that root; 0 or less with `to` pauses the watch of that root
                     * @default 0
                     */
                    watch_interval?: number;
                } & ({
                    temp_file_id: string;
                } | {
                    path: string;
                });
            };
        };
        responses: {
            /** @description imports a file, a zipped tree, a web page or file, or a git repository as a resource */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            commit?: string;
                            files?: number;
                            queue_status?: {
                                completed: number;
                                errors: number;
                                pending: number;
                                processing: number;
                            };
                            removed?: number;
                            root_uri: string;
                            semantic_status?: string;
                            skipped?: {
                                path: string;
                                reason: string;
                            }[];
                            skipped_count?: number;
                            source: string;
                            source_type: "upload" | "http" | "git" | "local";
                            status: "success" | "pending" | "running";
                            task_id: string;
                            unchanged?: number;
                            vector_status?: string;
                            watch_task_id?: string;
                            written?: number;
                        };
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description INVALID_ARGUMENT, INVALID_URI */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT" | "INVALID_URI";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PERMISSION_DENIED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "NOT_FOUND";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description CONFLICT */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "CONFLICT";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNSUPPORTED_MEDIA_TYPE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PROCESSING_ERROR */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PROCESSING_ERROR";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getResourcesInfo: {
        parameters: {
            query: {
                uri: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description what a resource root was imported from: source, reason, instruction, time, task (never credentials) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            commit?: string;
                            imported_at: string;
                            instruction: string;
                            media?: {
                                [key: string]: unknown;
                            };
                            processing_mode?: string;
                            reason: string;
                            source: string;
                            source_type: string;
                            task_id: string;
                            uri: string;
                        };
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description INVALID_ARGUMENT, INVALID_URI */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT" | "INVALID_URI";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PERMISSION_DENIED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "NOT_FOUND";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    postResourcesTempUpload: {
        parameters: {
            query?: {
                upload_mode?: "local" | "shared";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "multipart/form-data": {
                    /** Format: binary */
                    file: string;
                };
            };
        };
        responses: {
            /** @description stores an uploaded file (multipart part `file`) for a later add-resource */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            /** @description ISO 8601 */
                            expires_at: string;
                            filename?: string | null;
                            size: number;
                            temp_file_id: string;
                            upload_mode: "local" | "shared";
                        };
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description INVALID_ARGUMENT */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNSUPPORTED_MEDIA_TYPE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    postSearchFind: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description legacy 0.3.x agent_id: the actor peer, and unmigrated ctx://agent data searched too */
                    agent_id?: string;
                    context_type?: ("resource" | "memory" | "skill") | ("resource" | "memory" | "skill")[];
                    filter?: {
                        [key: string]: unknown;
                    };
                    image_url?: string;
                    include_provenance?: boolean;
                    level?: string | number;
                    limit?: number;
                    node_limit?: number;
                    /** @description not supported: 400; set the peer view with X-Ctx-Actor-Peer */
                    peer_id?: unknown;
                    query?: string;
                    read_content?: boolean;
                    score_threshold?: number;
                    since?: string;
                    tags?: string[];
                    target_uri?: string | string[];
                    time_field?: "updated_at" | "created_at";
                    until?: string;
                } & ({
                    query: string;
                } | {
                    image_url: string;
                });
            };
        };
        responses: {
            /** @description finds stored contexts by vector similarity (hierarchical, filtered by scope, type, tags and time) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            memories: {
                                abstract: string;
                                category?: string;
                                /** @description with read_content */
                                content?: string;
                                context_type: "resource" | "memory" | "skill";
                                level: number;
                                match_reason: string;
                                overview?: string | null;
                                score: number;
                                uri: string;
                            }[];
                            /** @description with include_provenance */
                            provenance?: unknown;
                            /** @description search only */
                            query_plan?: {
                                expanded_queries: string[];
                            };
                            resources: {
                                abstract: string;
                                category?: string;
                                /** @description with read_content */
                                content?: string;
                                context_type: "resource" | "memory" | "skill";
                                level: number;
                                match_reason: string;
                                overview?: string | null;
                                score: number;
                                uri: string;
                            }[];
                            skills: {
                                abstract: string;
                                category?: string;
                                /** @description with read_content */
                                content?: string;
                                context_type: "resource" | "memory" | "skill";
                                level: number;
                                match_reason: string;
                                overview?: string | null;
                                score: number;
                                uri: string;
                            }[];
                            total: number;
                        };
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description INVALID_ARGUMENT, INVALID_URI */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT" | "INVALID_URI";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PERMISSION_DENIED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "NOT_FOUND";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNSUPPORTED_MEDIA_TYPE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNIMPLEMENTED */
            501: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNIMPLEMENTED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    postSearchGlob: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    node_limit?: number;
                    pattern: string;
                    /** @default ctx:// */
                    uri?: string;
                };
            };
        };
        responses: {
            /** @description URIs under uri whose relative path matches a glob */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            count: number;
                            matches: string[];
                        };
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description INVALID_ARGUMENT, INVALID_URI */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT" | "INVALID_URI";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PERMISSION_DENIED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "NOT_FOUND";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNSUPPORTED_MEDIA_TYPE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    postSearchGrep: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    case_insensitive?: boolean;
                    exclude_uri?: string;
                    level_limit?: number;
                    node_limit?: number;
                    /** Format: regex */
                    pattern: string;
                    uri: string;
                };
            };
        };
        responses: {
            /** @description lines matching a regular expression in files under uri */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            count: number;
                            matches: {
                                content: string;
                                line: number;
                                uri: string;
                            }[];
                        };
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description INVALID_ARGUMENT, INVALID_URI */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT" | "INVALID_URI";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PERMISSION_DENIED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "NOT_FOUND";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNSUPPORTED_MEDIA_TYPE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    postSearchSearch: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description legacy 0.3.x agent_id: the actor peer, and unmigrated ctx://agent data searched too */
                    agent_id?: string;
                    context_type?: ("resource" | "memory" | "skill") | ("resource" | "memory" | "skill")[];
                    filter?: {
                        [key: string]: unknown;
                    };
                    image_url?: string;
                    include_provenance?: boolean;
                    level?: string | number;
                    limit?: number;
                    mode?: "auto" | "fast" | "deep" | "context";
                    node_limit?: number;
                    /** @description not supported: 400; set the peer view with X-Ctx-Actor-Peer */
                    peer_id?: unknown;
                    query?: string;
                    read_content?: boolean;
                    score_threshold?: number;
                    session_id?: string;
                    since?: string;
                    tags?: string[];
                    target_uri?: string | string[];
                    time_field?: "updated_at" | "created_at";
                    until?: string;
                } & ({
                    query: string;
                } | {
                    image_url: string;
                });
            };
        };
        responses: {
            /** @description find with session context and query planning (expanded queries) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            memories: {
                                abstract: string;
                                category?: string;
                                /** @description with read_content */
                                content?: string;
                                context_type: "resource" | "memory" | "skill";
                                level: number;
                                match_reason: string;
                                overview?: string | null;
                                score: number;
                                uri: string;
                            }[];
                            /** @description with include_provenance */
                            provenance?: unknown;
                            /** @description search only */
                            query_plan?: {
                                expanded_queries: string[];
                            };
                            resources: {
                                abstract: string;
                                category?: string;
                                /** @description with read_content */
                                content?: string;
                                context_type: "resource" | "memory" | "skill";
                                level: number;
                                match_reason: string;
                                overview?: string | null;
                                score: number;
                                uri: string;
                            }[];
                            skills: {
                                abstract: string;
                                category?: string;
                                /** @description with read_content */
                                content?: string;
                                context_type: "resource" | "memory" | "skill";
                                level: number;
                                match_reason: string;
                                overview?: string | null;
                                score: number;
                                uri: string;
                            }[];
                            total: number;
                        };
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description INVALID_ARGUMENT, INVALID_URI */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT" | "INVALID_URI";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PERMISSION_DENIED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "NOT_FOUND";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNSUPPORTED_MEDIA_TYPE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNIMPLEMENTED */
            501: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNIMPLEMENTED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getSessions: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the caller's sessions */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            is_dir: boolean;
                            session_id: string;
                            uri: string;
                        }[];
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    postSessions: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    auto_commit_policy?: {
                        [key: string]: unknown;
                    } | null;
                    memory_extraction_config?: {
                        [key: string]: unknown;
                    } | null;
                    memory_policy?: {
                        [key: string]: unknown;
                    } | null;
                    session_id?: string;
                    telemetry?: boolean | {
                        summary?: boolean;
                    };
                };
            };
        };
        responses: {
            /** @description creates a session (session_id generated when absent) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            auto_commit_policy: {
                                idle_timeout_seconds: number;
                                keep_recent_count: number;
                                message_count_threshold: number;
                                min_commit_interval_seconds: number;
                                pending_token_threshold: number;
                            } | null;
                            session_id: string;
                            uri: string;
                            user: {
                                account_id: string;
                                user_id: string;
                            };
                        };
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description INVALID_ARGUMENT */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description CONFLICT */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "CONFLICT";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNSUPPORTED_MEDIA_TYPE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getSessionsSessionId: {
        parameters: {
            query?: {
                auto_create?: boolean;
            };
            header?: never;
            path: {
                session_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description session info; NOT_FOUND when absent unless auto_create */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            auto_commit_policy: {
                                idle_timeout_seconds: number;
                                keep_recent_count: number;
                                message_count_threshold: number;
                                min_commit_interval_seconds: number;
                                pending_token_threshold: number;
                            } | null;
                            commit_count: number;
                            created_at: string;
                            embedding_token_usage: {
                                [key: string]: number;
                            };
                            /** @description ISO 8601; "" before the first commit */
                            last_commit_at: string;
                            llm_token_usage: {
                                [key: string]: number;
                            };
                            memories_extracted: {
                                [key: string]: number;
                            };
                            message_count: number;
                            pending_tokens: number;
                            session_id: string;
                            total_message_count: number;
                            updated_at: string;
                            uri: string;
                            user: {
                                account_id: string;
                                user_id: string;
                            };
                        };
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description INVALID_ARGUMENT */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "NOT_FOUND";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    deleteSessionsSessionId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                session_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description deletes a session with its messages and archives (extracted memories stay); absent is fine */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            session_id: string;
                        };
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description INVALID_ARGUMENT */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getSessionsSessionIdArchivesArchiveId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                archive_id: string;
                session_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description one completed archive: abstract, overview and messages */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            abstract: string;
                            archive_id: string;
                            messages: {
                                created_at: string;
                                id: string;
                                parts: {
                                    [key: string]: unknown;
                                }[];
                                peer_id?: string;
                                role: string;
                            }[];
                            overview: string;
                        };
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description INVALID_ARGUMENT */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "NOT_FOUND";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    postSessionsSessionIdCommit: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                session_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    keep_recent_count?: number;
                    telemetry?: boolean | {
                        summary?: boolean;
                    };
                };
            };
        };
        responses: {
            /** @description archives the live messages now and starts the session_commit task (summary and memory extraction) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            archive_uri: string | null;
                            archived: boolean;
                            session_id: string;
                            status: string;
                            task_id: string | null;
                        };
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description INVALID_ARGUMENT */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "NOT_FOUND";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNSUPPORTED_MEDIA_TYPE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    patchSessionsSessionIdConfig: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                session_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    auto_commit_policy?: {
                        [key: string]: unknown;
                    } | null;
                    memory_extraction_config?: {
                        [key: string]: unknown;
                    };
                    telemetry?: boolean | {
                        summary?: boolean;
                    };
                };
            };
        };
        responses: {
            /** @description updates memory_extraction_config and auto_commit_policy (merge; null disables the policy) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            auto_commit_policy: {
                                idle_timeout_seconds: number;
                                keep_recent_count: number;
                                message_count_threshold: number;
                                min_commit_interval_seconds: number;
                                pending_token_threshold: number;
                            } | null;
                            memory_extraction_config: {
                                [key: string]: unknown;
                            };
                            session_id: string;
                        };
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description INVALID_ARGUMENT */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "NOT_FOUND";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNSUPPORTED_MEDIA_TYPE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getSessionsSessionIdContext: {
        parameters: {
            query?: {
                token_budget?: number;
            };
            header?: never;
            path: {
                session_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description active messages plus archive overview and abstracts within token_budget */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            estimatedTokens: number;
                            latest_archive_overview: string;
                            messages: {
                                created_at: string;
                                id: string;
                                parts: {
                                    [key: string]: unknown;
                                }[];
                                peer_id?: string;
                                role: string;
                            }[];
                            pre_archive_abstracts: {
                                abstract: string;
                                archive_id: string;
                            }[];
                            stats: {
                                [key: string]: number;
                            };
                        };
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description INVALID_ARGUMENT */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "NOT_FOUND";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    postSessionsSessionIdExtract: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                session_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    telemetry?: boolean | {
                        summary?: boolean;
                    };
                };
            };
        };
        responses: {
            /** @description extracts memories from the live messages now, without archiving them (the reference's manual extract) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            action: "created" | "updated" | "unchanged";
                            added: string[];
                            category: string;
                            count: number;
                            uri: string;
                        }[];
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description INVALID_ARGUMENT */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "NOT_FOUND";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNSUPPORTED_MEDIA_TYPE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    postSessionsSessionIdMessages: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                session_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description legacy 0.3.x: the agent that spoke; becomes peer_id */
                    agent_id?: string;
                    /** @description simple mode: one text part */
                    content?: string;
                    /**
                     * Format: date-time
                     * @description ISO 8601; default now
                     */
                    created_at?: string;
                    /** @description free-form, kept with the message */
                    metadata?: {
                        [key: string]: unknown;
                    };
                    /** @description parts mode: text, context and tool parts; wins over content */
                    parts?: ({
                        text: string;
                        /** @constant */
                        type: "text";
                    } | {
                        abstract?: string | null;
                        /** @enum {unknown} */
                        context_type?: "resource" | "memory" | "skill";
                        /** @constant */
                        type: "context";
                        uri?: string | null;
                    } | {
                        skill_uri?: string | null;
                        tool_id?: string | null;
                        tool_input?: Record<string, never> | null;
                        tool_name?: string | null;
                        tool_output?: string | null;
                        /** @enum {unknown} */
                        tool_status?: "pending" | "running" | "completed" | "error";
                        /** @constant */
                        type: "tool";
                    })[];
                    /** @description the peer that spoke (shared sessions) */
                    peer_id?: string;
                    role: "user" | "assistant" | "system";
                    /** @description legacy 0.3.x role isolation: accepted and ignored since 0.4.0 */
                    role_id?: string;
                    telemetry?: boolean | {
                        summary?: boolean;
                    };
                } & (({
                    content: string;
                } | {
                    parts: unknown[];
                }) & unknown);
            };
        };
        responses: {
            /** @description adds a message (simple mode: content; parts mode: parts); creates the session when missing */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            added?: number;
                            message_count: number;
                            message_id?: string;
                            pending_tokens: number;
                            session_id: string;
                        };
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description INVALID_ARGUMENT */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNSUPPORTED_MEDIA_TYPE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    postSessionsSessionIdMessagesBatch: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                session_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    messages: ({
                        /** @description legacy 0.3.x: the agent that spoke; becomes peer_id */
                        agent_id?: string;
                        /** @description simple mode: one text part */
                        content?: string;
                        /**
                         * Format: date-time
                         * @description ISO 8601; default now
                         */
                        created_at?: string;
                        /** @description free-form, kept with the message */
                        metadata?: {
                            [key: string]: unknown;
                        };
                        /** @description parts mode: text, context and tool parts; wins over content */
                        parts?: ({
                            text: string;
                            /** @constant */
                            type: "text";
                        } | {
                            abstract?: string | null;
                            /** @enum {unknown} */
                            context_type?: "resource" | "memory" | "skill";
                            /** @constant */
                            type: "context";
                            uri?: string | null;
                        } | {
                            skill_uri?: string | null;
                            tool_id?: string | null;
                            tool_input?: Record<string, never> | null;
                            tool_name?: string | null;
                            tool_output?: string | null;
                            /** @enum {unknown} */
                            tool_status?: "pending" | "running" | "completed" | "error";
                            /** @constant */
                            type: "tool";
                        })[];
                        /** @description the peer that spoke (shared sessions) */
                        peer_id?: string;
                        role: "user" | "assistant" | "system";
                        /** @description legacy 0.3.x role isolation: accepted and ignored since 0.4.0 */
                        role_id?: string;
                        telemetry?: boolean | {
                            summary?: boolean;
                        };
                    } & (({
                        content: string;
                    } | {
                        parts: unknown[];
                    }) & unknown))[];
                    telemetry?: boolean | {
                        summary?: boolean;
                    };
                };
            };
        };
        responses: {
            /** @description adds up to 100 messages in one atomic write */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            added?: number;
                            message_count: number;
                            message_id?: string;
                            pending_tokens: number;
                            session_id: string;
                        };
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description INVALID_ARGUMENT */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description CONFLICT */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "CONFLICT";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNSUPPORTED_MEDIA_TYPE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    postSessionsSessionIdUsed: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                session_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    contexts?: string[] | null;
                    skill?: {
                        [key: string]: unknown;
                    } | null;
                };
            };
        };
        responses: {
            /** @description records contexts and a skill the agent actually used (creates a missing session) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            contexts_used: number;
                            session_id: string;
                            skills_used: number;
                        };
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description INVALID_ARGUMENT */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "NOT_FOUND";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNSUPPORTED_MEDIA_TYPE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getSkills: {
        parameters: {
            query?: {
                node_limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the caller's skills with their SKILL.md metadata */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            root_uri: string;
                            root_uris: string[];
                            skills: {
                                allowed_tools: string[];
                                description: string;
                                name: string;
                                root_uri: string;
                                skill_md_uri: string;
                                tags: string[];
                                /** @constant */
                                type: "skill";
                                uri: string;
                            }[];
                            total: number;
                        };
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description INVALID_ARGUMENT */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    postSkills: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    data?: (string | {
                        [key: string]: unknown;
                    }) | null;
                    telemetry?: boolean | {
                        summary?: boolean;
                    };
                    temp_file_id?: string | null;
                    timeout?: number | null;
                    /** @default false */
                    wait?: boolean;
                } & ({
                    data: unknown;
                } | {
                    temp_file_id: string;
                });
            };
        };
        responses: {
            /** @description adds (or replaces) a skill in the caller's ctx://user/{id}/skills/ */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            auxiliary_files: number;
                            ignored_fields?: string[];
                            name: string;
                            queue_status?: {
                                completed: number;
                                errors: number;
                                pending: number;
                                processing: number;
                            };
                            root_uri: string;
                            semantic_status?: string;
                            skipped_files?: string[];
                            status: "success" | "error";
                            task_id?: string;
                            uri: string;
                            vector_status?: string;
                        };
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description INVALID_ARGUMENT, INVALID_URI */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT" | "INVALID_URI";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PERMISSION_DENIED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "NOT_FOUND";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNSUPPORTED_MEDIA_TYPE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PROCESSING_ERROR */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PROCESSING_ERROR";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getSkillsName: {
        parameters: {
            query?: {
                include_content?: boolean;
                include_files?: boolean;
            };
            header?: never;
            path: {
                name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description one of the caller's skills: metadata, L0/L1, and on request SKILL.md and its file list */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            abstract: string;
                            allowed_tools: string[];
                            content?: string;
                            description: string;
                            files?: {
                                kind: "definition" | "summary" | "auxiliary" | "directory";
                                path: string;
                                size: number;
                                uri: string;
                            }[];
                            name: string;
                            overview: string;
                            root_uri: string;
                            skill_md_uri: string;
                            tags: string[];
                            /** @constant */
                            type: "skill";
                            uri: string;
                        };
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description INVALID_ARGUMENT */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "NOT_FOUND";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    deleteSkillsName: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description removes one of the caller's skills (its directory and index records) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            deleted: number;
                            name: string;
                            root_uri: string;
                            uri: string;
                        };
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description INVALID_ARGUMENT */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "NOT_FOUND";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    postSnapshotCommit: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    author_email?: string;
                    author_name?: string;
                    /** @default main */
                    branch?: string;
                    message: string;
                    paths?: string[] | null;
                };
            };
        };
        responses: {
            /** @description Commit the account's tree (or some paths of it) to a branch */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            changed?: number;
                            commit_oid: string | null;
                            ignored: number;
                            result: "created" | "noop";
                        };
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description INVALID_ARGUMENT, INVALID_URI */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT" | "INVALID_URI";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PERMISSION_DENIED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "NOT_FOUND";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNSUPPORTED_MEDIA_TYPE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getSnapshotIgnore: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The account's .ctxgitignore (not in the spec) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            content: string;
                            exists: boolean;
                            rules: number;
                        };
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    putSnapshotIgnore: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    content: string;
                };
            };
        };
        responses: {
            /** @description Set the account's .ctxgitignore (gitignore syntax, paths relative to ctx://; not in the spec) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            content: string;
                            exists: boolean;
                            rules: number;
                        };
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description INVALID_ARGUMENT */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PERMISSION_DENIED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNSUPPORTED_MEDIA_TYPE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    deleteSnapshotIgnore: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Delete the account's .ctxgitignore (not in the spec) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            deleted: boolean;
                        };
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description INVALID_ARGUMENT */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PERMISSION_DENIED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getSnapshotLog: {
        parameters: {
            query?: {
                branch?: string;
                /** @description clamped to 1-500 */
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Commits of a branch, newest first along first parents */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            author: {
                                email: string;
                                name: string;
                                time_seconds: number;
                                tz_offset_seconds: number;
                            };
                            committer: {
                                email: string;
                                name: string;
                                time_seconds: number;
                                tz_offset_seconds: number;
                            };
                            message: string;
                            oid: string;
                            parents: string[];
                            tree: string;
                        }[];
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description INVALID_ARGUMENT */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "NOT_FOUND";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    postSnapshotRestore: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    author_email?: string;
                    author_name?: string;
                    /** @default main */
                    branch?: string;
                    /** @default false */
                    dry_run?: boolean;
                    message?: string;
                    project_dir?: string;
                    source_commit: string;
                };
            };
        };
        responses: {
            /** @description Restore a commit (or one directory of it) as a new commit on top of the branch head */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            deleted?: number;
                            deleted_paths?: string[];
                            diff?: {
                                to_delete: string[];
                                to_write: {
                                    oid: string;
                                    path: string;
                                }[];
                                unchanged: string[];
                            };
                            head?: string | null;
                            new_commit_oid?: string;
                            parent_commit?: string | null;
                            result: "applied" | "noop" | "dry_run";
                            source?: string;
                            source_commit?: string;
                            task_id?: string | null;
                            unchanged?: number;
                            written?: number;
                            written_paths?: string[];
                        };
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description INVALID_ARGUMENT, INVALID_URI */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT" | "INVALID_URI";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PERMISSION_DENIED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "NOT_FOUND";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNSUPPORTED_MEDIA_TYPE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getSnapshotShow: {
        parameters: {
            query: {
                path?: string;
                /** @description a commit id or a branch (at most 200 characters, as branch names: git cannot hold a longer ref as a file) */
                target_ref: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A commit’s metadata, or with `path` the raw bytes of one file in it */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            author: {
                                email: string;
                                name: string;
                                time_seconds: number;
                                tz_offset_seconds: number;
                            };
                            committer: {
                                email: string;
                                name: string;
                                time_seconds: number;
                                tz_offset_seconds: number;
                            };
                            message: string;
                            oid: string;
                            parents: string[];
                            tree: string;
                        };
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description INVALID_ARGUMENT, INVALID_URI */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT" | "INVALID_URI";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PERMISSION_DENIED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "NOT_FOUND";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    postSystemBackendSyncRetry: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    uri: string;
                };
            };
        };
        responses: {
            /** @description moves failed index work under uri back onto its queues (ROOT or ADMIN) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            failed: number;
                            path: string;
                            retried: number;
                        };
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description INVALID_ARGUMENT, INVALID_URI */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT" | "INVALID_URI";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PERMISSION_DENIED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNSUPPORTED_MEDIA_TYPE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    postSystemBackendSyncStatus: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    uri: string;
                };
            };
        };
        responses: {
            /** @description index work still pending or failed under uri (ROOT or ADMIN) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            entry_count: number;
                            failed_count: number;
                            path: string;
                            pending_count: number;
                        };
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description INVALID_ARGUMENT, INVALID_URI */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT" | "INVALID_URI";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PERMISSION_DENIED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNSUPPORTED_MEDIA_TYPE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getSystemConsistency: {
        parameters: {
            query?: {
                /** @description `<shard>:<seq>,…`: digests of these shards once each sequence is applied here (how peers are asked) */
                at?: string;
                /** @description also ask every other replica of the same shards and compare */
                cluster?: boolean;
                /** @description one shard (its number, or sys) */
                shard?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description per shard this node replicates, its applied sequence and a digest of the shard's keys; cluster=true compares every replica (ROOT or ADMIN; cluster mode) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            /** @description with cluster=true */
                            cluster?: {
                                /** @description every other replica's copy was compared at the same sequence and matched */
                                clean: boolean;
                                /** @description copies compared (peer × shard) */
                                compared: number;
                                mismatches: {
                                    applied_seq: number;
                                    digest: string;
                                    keys: number;
                                    local: {
                                        applied_seq: number;
                                        digest: string;
                                        keys: number;
                                    };
                                    node: string;
                                    shard: number;
                                }[];
                                unreachable: {
                                    error: string;
                                    node: string;
                                }[];
                                /** @description copies whose sequence never met this node's (writes still arriving) */
                                unsettled: {
                                    applied_seq: number;
                                    local_applied_seq: number;
                                    node: string;
                                    shard: number;
                                }[];
                            };
                            mode: "single" | "cluster";
                            node?: string;
                            shards: {
                                /** @description the stream sequence the digest is taken at */
                                applied_seq: number;
                                /** @description sha256 over every key and value of the range, in key order */
                                digest: string;
                                /** @description keys in the shard's range */
                                keys: number;
                                /** @description this node's role for the shard: leader, follower (or unassigned when asked for a shard it holds no copy of) */
                                role: string;
                                /** @description -1 is the system shard (identities) */
                                shard: number;
                            }[];
                        };
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description INVALID_ARGUMENT */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PERMISSION_DENIED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    postSystemConsistency: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    uri: string;
                };
            };
        };
        responses: {
            /** @description index records missing for what lies under uri */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            expected_count: number;
                            missing_record_count: number;
                            missing_records: {
                                key: string;
                                level: number;
                                path: string;
                                uri: string;
                            }[];
                            missing_records_truncated: boolean;
                            ok: boolean;
                        };
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description INVALID_ARGUMENT, INVALID_URI */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT" | "INVALID_URI";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PERMISSION_DENIED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "NOT_FOUND";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNSUPPORTED_MEDIA_TYPE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getSystemStatus: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description whether the service is initialized, the caller, the cluster (docs/scale-out.md) and which core runs */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            cluster: {
                                /** @description `single` without CTX_CLUSTER_NATS; the other fields appear in cluster mode */
                                mode: "single" | "cluster";
                                nats?: {
                                    connected: boolean;
                                    server?: string;
                                };
                                /** @description this node */
                                node?: {
                                    id: string;
                                    started_at: string;
                                    url: string;
                                };
                                /** @description live nodes, this one included, by id */
                                peers?: {
                                    id: string;
                                    last_seen_ms: number;
                                    started_at: string;
                                    url: string;
                                }[];
                                /** @description ctx replicas per shard */
                                replicas?: number;
                                shard_count?: number;
                                /** @description every shard's replica set by rendezvous hashing over the live nodes, this node's role in it, the lease holder, and applied vs stream sequence */
                                shards?: {
                                    /** @description last stream sequence applied to this node */
                                    applied_seq: number;
                                    /** @description stream_seq - applied_seq */
                                    lag: number;
                                    /** @description the lease holder this node knows of */
                                    leader?: string;
                                    replicas: string[];
                                    /** @description `leader` holds the lease and appends; `follower` applies the stream; `unassigned` holds no copy */
                                    role: "leader" | "follower" | "unassigned";
                                    shard: number;
                                    /** @description the stream's last sequence as this node knows it */
                                    stream_seq: number;
                                }[];
                                /** @description the system shard (identities), held by every node; `shard` is -1 */
                                system_shard?: {
                                    /** @description last stream sequence applied to this node */
                                    applied_seq: number;
                                    /** @description stream_seq - applied_seq */
                                    lag: number;
                                    /** @description the lease holder this node knows of */
                                    leader?: string;
                                    replicas: string[];
                                    /** @description `leader` holds the lease and appends; `follower` applies the stream; `unassigned` holds no copy */
                                    role: "leader" | "follower" | "unassigned";
                                    shard: number;
                                    /** @description the stream's last sequence as this node knows it */
                                    stream_seq: number;
                                };
                            };
                            core: {
                                /** @description the HNSW graph: FAISS's (native) or the pure-Rust one (wasm) */
                                graph: "faiss" | "rust";
                                /** @description `native`: the platform addon; `wasm`: the WebAssembly build of the same crates */
                                kind: "native" | "wasm";
                                /** @description the core crate version */
                                version: string;
                            };
                            initialized: boolean;
                            user: string;
                        };
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getSystemSyncSyncPath: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the rest of the path (may contain /) */
                sync_path: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description sync-status for the URI path ctx://{sync_path} */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            entry_count: number;
                            failed_count: number;
                            path: string;
                            pending_count: number;
                        };
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description INVALID_URI */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_URI";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PERMISSION_DENIED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    postSystemSyncSyncPath: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the rest of the path (may contain /) */
                sync_path: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description sync-retry for ctx://{sync_path} (the path ends in /retry) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            failed: number;
                            path: string;
                            retried: number;
                        };
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description INVALID_ARGUMENT, INVALID_URI */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT" | "INVALID_URI";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PERMISSION_DENIED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "NOT_FOUND";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNSUPPORTED_MEDIA_TYPE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    postSystemWait: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    timeout?: number | null;
                };
            };
        };
        responses: {
            /** @description waits until the Semantic and Embedding queues are drained (or timeout seconds pass) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description queue name to its counts */
                        result: {
                            [key: string]: {
                                error_count: number;
                                errors: string[];
                                processed: number;
                                requeue_count: number;
                            };
                        };
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description INVALID_ARGUMENT */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNSUPPORTED_MEDIA_TYPE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description DEADLINE_EXCEEDED */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "DEADLINE_EXCEEDED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getTasks: {
        parameters: {
            query?: {
                include_internal?: boolean;
                limit?: number;
                resource_id?: string;
                status?: "pending" | "running" | "cancelling" | "completed" | "failed" | "cancelled";
                task_type?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the caller's tasks, newest first */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            /** @description epoch seconds */
                            created_at: number;
                            error: string | null;
                            resource_id?: string | null;
                            /** @description present when terminal; `execution_events` with include_events=true */
                            result: {
                                [key: string]: unknown;
                            } | null;
                            stage: string | null;
                            status: "pending" | "running" | "cancelling" | "completed" | "failed" | "cancelled";
                            task_id: string;
                            task_type: string;
                            /** @description epoch seconds */
                            updated_at: number;
                        }[];
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description INVALID_ARGUMENT */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getTasksTaskId: {
        parameters: {
            query?: {
                include_events?: boolean;
            };
            header?: never;
            path: {
                task_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description a task record; 404 when missing, expired or owned by someone else */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            /** @description epoch seconds */
                            created_at: number;
                            error: string | null;
                            resource_id?: string | null;
                            /** @description present when terminal; `execution_events` with include_events=true */
                            result: {
                                [key: string]: unknown;
                            } | null;
                            stage: string | null;
                            status: "pending" | "running" | "cancelling" | "completed" | "failed" | "cancelled";
                            task_id: string;
                            task_type: string;
                            /** @description epoch seconds */
                            updated_at: number;
                        };
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description INVALID_ARGUMENT */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "NOT_FOUND";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    postTasksTaskIdCancel: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                task_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description cancels a task the caller owns (status cancelling or cancelled) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            /** @description epoch seconds */
                            created_at: number;
                            error: string | null;
                            resource_id?: string | null;
                            /** @description present when terminal; `execution_events` with include_events=true */
                            result: {
                                [key: string]: unknown;
                            } | null;
                            stage: string | null;
                            status: "pending" | "running" | "cancelling" | "completed" | "failed" | "cancelled";
                            task_id: string;
                            task_type: string;
                            /** @description epoch seconds */
                            updated_at: number;
                        };
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description INVALID_ARGUMENT */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PERMISSION_DENIED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "NOT_FOUND";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description FAILED_PRECONDITION */
            412: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "FAILED_PRECONDITION";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNSUPPORTED_MEDIA_TYPE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getWatches: {
        parameters: {
            query?: {
                active_only?: boolean;
                to_uri?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description watch tasks the caller may see (their own; an ADMIN all of the account) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            tasks: {
                                account_id: string;
                                build_index: boolean;
                                created_at: string;
                                instruction: string;
                                is_active: boolean;
                                last_error: string | null;
                                last_execution_time: string | null;
                                last_status: ("completed" | "failed" | "cancelled") | null;
                                last_task_id: string | null;
                                next_execution_time: string;
                                original_role: string;
                                parent_uri: string | null;
                                path: string;
                                processor_kwargs: {
                                    [key: string]: unknown;
                                };
                                reason: string;
                                source_type: string | null;
                                summarize: boolean;
                                task_id: string;
                                to_uri: string;
                                user_id: string;
                                watch_interval: number;
                            }[];
                            total: number;
                        };
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description INVALID_ARGUMENT, INVALID_URI */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT" | "INVALID_URI";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PERMISSION_DENIED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    deleteWatches: {
        parameters: {
            query: {
                to_uri: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description deletes the watch of ?to_uri= (the imported resource stays) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            deleted: boolean;
                            task_id: string;
                            to_uri: string;
                        };
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description INVALID_ARGUMENT, INVALID_URI */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT" | "INVALID_URI";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PERMISSION_DENIED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "NOT_FOUND";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    patchWatches: {
        parameters: {
            query: {
                to_uri: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    instruction?: string;
                    is_active?: boolean;
                    reason?: string;
                    /** @description minutes, > 0 */
                    watch_interval?: number;
                };
            };
        };
        responses: {
            /** @description changes the watch of ?to_uri=: watch_interval, is_active (pause/resume), reason, instruction */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            account_id: string;
                            build_index: boolean;
                            created_at: string;
                            instruction: string;
                            is_active: boolean;
                            last_error: string | null;
                            last_execution_time: string | null;
                            last_status: ("completed" | "failed" | "cancelled") | null;
                            last_task_id: string | null;
                            next_execution_time: string;
                            original_role: string;
                            parent_uri: string | null;
                            path: string;
                            processor_kwargs: {
                                [key: string]: unknown;
                            };
                            reason: string;
                            source_type: string | null;
                            summarize: boolean;
                            task_id: string;
                            to_uri: string;
                            user_id: string;
                            watch_interval: number;
                        };
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description INVALID_ARGUMENT, INVALID_URI */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT" | "INVALID_URI";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PERMISSION_DENIED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "NOT_FOUND";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNSUPPORTED_MEDIA_TYPE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getWatchesTaskId: {
        parameters: {
            query?: {
                to_uri?: string;
            };
            header?: never;
            path: {
                task_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description one watch task; a to_uri given must name the same watch */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            account_id: string;
                            build_index: boolean;
                            created_at: string;
                            instruction: string;
                            is_active: boolean;
                            last_error: string | null;
                            last_execution_time: string | null;
                            last_status: ("completed" | "failed" | "cancelled") | null;
                            last_task_id: string | null;
                            next_execution_time: string;
                            original_role: string;
                            parent_uri: string | null;
                            path: string;
                            processor_kwargs: {
                                [key: string]: unknown;
                            };
                            reason: string;
                            source_type: string | null;
                            summarize: boolean;
                            task_id: string;
                            to_uri: string;
                            user_id: string;
                            watch_interval: number;
                        };
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description INVALID_ARGUMENT, INVALID_URI */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT" | "INVALID_URI";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PERMISSION_DENIED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "NOT_FOUND";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    deleteWatchesTaskId: {
        parameters: {
            query?: {
                to_uri?: string;
            };
            header?: never;
            path: {
                task_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description deletes a watch (the imported resource stays) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            deleted: boolean;
                            task_id: string;
                            to_uri: string;
                        };
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description INVALID_ARGUMENT, INVALID_URI */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT" | "INVALID_URI";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PERMISSION_DENIED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "NOT_FOUND";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    patchWatchesTaskId: {
        parameters: {
            query?: {
                to_uri?: string;
            };
            header?: never;
            path: {
                task_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    instruction?: string;
                    is_active?: boolean;
                    reason?: string;
                    /** @description minutes, > 0 */
                    watch_interval?: number;
                };
            };
        };
        responses: {
            /** @description changes a watch: watch_interval, is_active (pause/resume), reason, instruction */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            account_id: string;
                            build_index: boolean;
                            created_at: string;
                            instruction: string;
                            is_active: boolean;
                            last_error: string | null;
                            last_execution_time: string | null;
                            last_status: ("completed" | "failed" | "cancelled") | null;
                            last_task_id: string | null;
                            next_execution_time: string;
                            original_role: string;
                            parent_uri: string | null;
                            path: string;
                            processor_kwargs: {
                                [key: string]: unknown;
                            };
                            reason: string;
                            source_type: string | null;
                            summarize: boolean;
                            task_id: string;
                            to_uri: string;
                            user_id: string;
                            watch_interval: number;
                        };
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description INVALID_ARGUMENT, INVALID_URI */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT" | "INVALID_URI";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PERMISSION_DENIED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "NOT_FOUND";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNSUPPORTED_MEDIA_TYPE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    postWatchesTaskIdTrigger: {
        parameters: {
            query?: {
                to_uri?: string;
            };
            header?: never;
            path: {
                task_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description runs a watch now (re-imports its source in the background) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            scheduled: boolean;
                            task_id: string;
                            to_uri: string;
                        };
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description INVALID_ARGUMENT, INVALID_URI */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT" | "INVALID_URI";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PERMISSION_DENIED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "NOT_FOUND";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNSUPPORTED_MEDIA_TYPE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    postWatchesTrigger: {
        parameters: {
            query: {
                to_uri: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description runs the watch of ?to_uri= now (re-imports its source in the background) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            scheduled: boolean;
                            task_id: string;
                            to_uri: string;
                        };
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description INVALID_ARGUMENT, INVALID_URI */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT" | "INVALID_URI";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PERMISSION_DENIED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "NOT_FOUND";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNSUPPORTED_MEDIA_TYPE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    postBotV1Chat: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    channel_id?: string | null;
                    context?: {
                        content: string;
                        role: string;
                    }[] | null;
                    disabled_tools?: string[];
                    images?: {
                        image_url: {
                            detail?: "auto" | "low" | "high";
                            url: string;
                        };
                        /** @constant */
                        type: "image_url";
                    }[];
                    message?: string;
                    need_reply?: boolean;
                    session_id?: string;
                    stream?: boolean;
                };
            };
        };
        responses: {
            /** @description one chat turn: the answer, its events, the relevant contexts and token usage (no envelope) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        events: {
                            data: unknown;
                            event: string;
                            timestamp: string;
                        }[];
                        message: string;
                        relevant_memories: {
                            abstract: string;
                            context_type: string;
                            score: number;
                            uri: string;
                        }[];
                        response_id: string | null;
                        session_id: string;
                        timestamp: string;
                        token_usage: {
                            completion_tokens: number;
                            prompt_tokens: number;
                            total_tokens: number;
                        };
                    };
                };
            };
            /** @description INVALID_ARGUMENT */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNSUPPORTED_MEDIA_TYPE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    postBotV1ChatStream: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    channel_id?: string | null;
                    context?: {
                        content: string;
                        role: string;
                    }[] | null;
                    disabled_tools?: string[];
                    images?: {
                        image_url: {
                            detail?: "auto" | "low" | "high";
                            url: string;
                        };
                        /** @constant */
                        type: "image_url";
                    }[];
                    message?: string;
                    need_reply?: boolean;
                    session_id?: string;
                    stream?: boolean;
                };
            };
        };
        responses: {
            /** @description one chat turn as Server-Sent Events (`data: {event, data, timestamp}`); X-Bot-Session-ID carries the session */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": string;
                };
            };
            /** @description INVALID_ARGUMENT */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNSUPPORTED_MEDIA_TYPE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    postBotV1Compile: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description INVALID_ARGUMENT */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description 410 with migration guidance in the error envelope */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNSUPPORTED_MEDIA_TYPE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getBotV1CompileTaskId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                task_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description 410 with migration guidance in the error envelope */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    postBotV1CompileTaskIdCancel: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                task_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description INVALID_ARGUMENT */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description 410 with migration guidance in the error envelope */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNSUPPORTED_MEDIA_TYPE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    postBotV1Feedback: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    channel_id?: string | null;
                    feedback_reason?: string;
                    feedback_score?: number;
                    feedback_text?: string;
                    feedback_type: "thumb_up" | "thumb_down" | "rating";
                    response_id: string;
                    session_id: string;
                };
            };
        };
        responses: {
            /** @description feedback on an answer: thumb_up, thumb_down, or rating with feedback_score (no envelope) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        accepted: boolean;
                        feedback_delay_sec: number;
                        feedback_type: string;
                        response_id: string;
                        session_id: string;
                        timestamp: string;
                    };
                };
            };
            /** @description INVALID_ARGUMENT */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "NOT_FOUND";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNSUPPORTED_MEDIA_TYPE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getBotV1Health: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description bot chat health (no envelope); 503 when the bot is disabled or has no LLM */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        status: string;
                        timestamp: string;
                        version: string;
                    };
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getConsole: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the web console (single-page app; sign in with an API key) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getConsolePath: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the rest of the path (may contain /) */
                path: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the console's hashed assets (immutable); any other path without an extension is the app */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/octet-stream": string;
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "NOT_FOUND";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getConsoleWhoami: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the caller's identity: account, user and role (what the console shows and which pages it offers) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: {
                            account_id: string;
                            role: string;
                            user_id: string;
                        };
                        /** @constant */
                        status: "ok";
                        telemetry?: components["schemas"]["Telemetry"];
                        /** @description seconds the server spent on the request */
                        time: number;
                    };
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getHealth: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Health object (no envelope) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        auth_mode?: string;
                        healthy: boolean;
                        /** @constant */
                        status: "ok";
                        version: string;
                    };
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getMcp: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description JSON-RPC 2.0 (MCP Streamable HTTP): a JSON response, or text/event-stream for the GET stream; Mcp-Session-Id names the session */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": string;
                };
            };
            /** @description INVALID_ARGUMENT */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "NOT_FOUND";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    postMcp: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": string;
            };
        };
        responses: {
            /** @description JSON-RPC 2.0 (MCP Streamable HTTP): a JSON response, or text/event-stream for the GET stream; Mcp-Session-Id names the session */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
                };
            };
            /** @description INVALID_ARGUMENT */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "NOT_FOUND";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description RESOURCE_EXHAUSTED */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "RESOURCE_EXHAUSTED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    deleteMcp: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description JSON-RPC 2.0 (MCP Streamable HTTP): a JSON response, or text/event-stream for the GET stream; Mcp-Session-Id names the session */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
                };
            };
            /** @description INVALID_ARGUMENT */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "NOT_FOUND";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getMetrics: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Prometheus text format 0.0.4 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain; version=0.0.4; charset=utf-8": string;
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PERMISSION_DENIED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "NOT_FOUND";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getReady: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Ready object (no envelope); HTTP 503 when not ready */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description check name to `ok`, `not_configured` or the error */
                        checks: {
                            [key: string]: string;
                        };
                        status: "ready" | "not_ready";
                    };
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    postRuntimeV1Tasks: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    payload: unknown;
                    /** @enum {string} */
                    task_type: "compile";
                };
            };
        };
        responses: {
            /** @description starts a compile session on the bundled execution backend (202 {session_id}); Idempotency-Key reuses a session */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        session_id: string;
                    };
                };
            };
            /** @description INVALID_ARGUMENT */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNSUPPORTED_MEDIA_TYPE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    postRuntimeV1TasksCancel: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    session_id: string;
                };
            };
        };
        responses: {
            /** @description cancels a compile session (cancelling until stopped; terminal sessions answer as they are) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: string | null;
                        meta: {
                            [key: string]: unknown;
                        };
                        result: {
                            [key: string]: unknown;
                        } | null;
                        stage: string | null;
                        status: "pending" | "running" | "cancelling" | "completed" | "failed" | "cancelled";
                    };
                };
            };
            /** @description INVALID_ARGUMENT */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "NOT_FOUND";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNSUPPORTED_MEDIA_TYPE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    postRuntimeV1TasksStatus: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    session_id: string;
                };
            };
        };
        responses: {
            /** @description a compile session's {status, stage, error, meta, result} (the owner's only) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: string | null;
                        meta: {
                            [key: string]: unknown;
                        };
                        result: {
                            [key: string]: unknown;
                        } | null;
                        stage: string | null;
                        status: "pending" | "running" | "cancelling" | "completed" | "failed" | "cancelled";
                    };
                };
            };
            /** @description INVALID_ARGUMENT */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INVALID_ARGUMENT";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAUTHENTICATED";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "NOT_FOUND";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNSUPPORTED_MEDIA_TYPE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "INTERNAL";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error?: {
                            /** @enum {unknown} */
                            code?: "UNAVAILABLE";
                        };
                    } & components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
}
