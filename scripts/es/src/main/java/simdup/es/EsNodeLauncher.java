package simdup.es;

import java.nio.file.Path;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.function.Supplier;

import org.elasticsearch.Build;
import org.elasticsearch.client.internal.node.NodeClient;
import org.elasticsearch.cluster.metadata.IndexNameExpressionResolver;
import org.elasticsearch.cluster.node.DiscoveryNodes;
import org.elasticsearch.cluster.service.ClusterService;
import org.elasticsearch.common.io.stream.NamedWriteableRegistry;
import org.elasticsearch.common.logging.LogConfigurator;
import org.elasticsearch.common.settings.ClusterSettings;
import org.elasticsearch.common.settings.IndexScopedSettings;
import org.elasticsearch.common.settings.Settings;
import org.elasticsearch.common.settings.SettingsFilter;
import org.elasticsearch.env.Environment;
import org.elasticsearch.features.NodeFeature;
import org.elasticsearch.index.IndexVersion;
import org.elasticsearch.node.InternalSettingsPreparer;
import org.elasticsearch.node.Node;
import org.elasticsearch.plugins.ActionPlugin;
import org.elasticsearch.plugins.Plugin;
import org.elasticsearch.plugins.PluginsLoader;
import org.elasticsearch.rest.BaseRestHandler;
import org.elasticsearch.rest.RestController;
import org.elasticsearch.rest.RestHandler;
import org.elasticsearch.rest.RestRequest;
import org.elasticsearch.rest.RestResponse;
import org.elasticsearch.rest.RestStatus;
import org.elasticsearch.xcontent.XContentBuilder;

/**
 * Runs one Elasticsearch node in this JVM, for simdup's tests on a loopback address.
 *
 * <p>It does what {@code bin/elasticsearch} does after its CLI has forked the server JVM, minus
 * three steps that only matter for production and that stop a test node on this kind of machine:
 * the refusal to run as root (CI runs as root), the entitlement agent (needs the JVM flags the
 * CLI adds) and the production bootstrap checks (a loopback-bound node skips them anyway).
 * Modules are loaded by Elasticsearch's own plugin loader from {@code $ES_HOME/modules}, each in
 * its own module layer, exactly as in the shipped distribution.
 *
 * <p>Usage, with the distribution's {@code lib/} on the module path (see scripts/es-start.sh):
 * <pre>
 * java --module-path $ES_HOME/lib --add-modules=ALL-MODULE-PATH -cp target/es-test-node.jar \
 *   -Des.path.home=$ES_HOME -Des.path.conf=scripts/es/config -Dsimdup.plugins=target/plugins \
 *   simdup.es.EsNodeLauncher -Ehttp.port=9200 -Epath.data=.cache/es/data -Epath.logs=.cache/es/logs
 * </pre>
 * The node stops cleanly on SIGTERM (a JVM shutdown hook closes it).
 */
public final class EsNodeLauncher {

    private EsNodeLauncher() {}

    public static void main(String[] args) throws Exception {
        Path home = Path.of(requiredProperty("es.path.home")).toAbsolutePath();
        Path config = Path.of(requiredProperty("es.path.conf")).toAbsolutePath();
        Path extraPlugins = Path.of(requiredProperty("simdup.plugins")).toAbsolutePath();

        // -Ekey=value pairs override elasticsearch.yml, as on the real command line.
        Map<String, String> overrides = new LinkedHashMap<>();
        overrides.put("path.home", home.toString());
        for (String arg : args) {
            int eq = arg.indexOf('=');
            if (arg.startsWith("-E") == false || eq < 3) {
                throw new IllegalArgumentException("Expected arguments of the form -Ekey=value, got [" + arg + "]");
            }
            overrides.put(arg.substring(2, eq), arg.substring(eq + 1));
        }

        // Reading elasticsearch.yml already logs through Elasticsearch's logging API, so its
        // log4j bridge goes in first; log4j itself is configured once the paths are known.
        LogConfigurator.configureESLogging();
        Environment env = InternalSettingsPreparer.prepareEnvironment(Settings.EMPTY, overrides, config, () -> "simdup-test-node");
        LogConfigurator.setClusterName(env.settings().get("cluster.name", "elasticsearch"));
        LogConfigurator.setNodeName(env.settings().get("node.name"));
        LogConfigurator.configure(env, true);

        // Modules come from the distribution; the one plugin is RootInfoPlugin below, packed by
        // Maven into its own jar under target/plugins/ (Elasticsearch loads a plugin's class only
        // through the plugin's own class loader).
        PluginsLoader plugins = PluginsLoader.createPluginsLoader(
            PluginsLoader.loadModulesBundles(env.modulesDir()),
            PluginsLoader.loadPluginsBundles(extraPlugins),
            Map.of() // no module gets native access: there is no entitlement layer to grant it
        );

        Node node;
        try {
            node = new Node(env, plugins);
            node.start();
        } catch (Throwable t) {
            t.printStackTrace();
            // The start script shows the log's last lines: end with the causes, not stack frames.
            for (Throwable cause = t; cause != null; cause = cause.getCause()) {
                System.err.println("simdup test node failed to start: " + cause);
            }
            // Elasticsearch's own threads may already be running: exit so the start script sees it.
            System.exit(1);
            return;
        }

        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> stop(node, stopped), "simdup-es-shutdown"));
        System.out.println("simdup test node started; pid " + ProcessHandle.current().pid());

        // Every Elasticsearch thread is a daemon thread: this one keeps the JVM alive.
        stopped.await();
    }

    /** Closes the node the way Elasticsearch's own shutdown hook does. */
    private static void stop(Node node, CountDownLatch stopped) {
        try {
            node.prepareForClose();
            node.close();
            if (node.awaitClose(30, TimeUnit.SECONDS) == false) {
                System.err.println("simdup test node did not close within 30 s");
            }
        } catch (Exception e) {
            e.printStackTrace();
        } finally {
            stopped.countDown();
        }
    }

    private static String requiredProperty(String name) {
        String value = System.getProperty(name);
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException("Expected the system property -D" + name + " to be set");
        }
        return value;
    }

    /**
     * Serves {@code GET /} and {@code HEAD /} (node name, cluster, version, build flavour), which
     * in 8.x live in the {@code rest-root} module: that module is neither in the integ-test-zip nor
     * published on Maven Central. Every value comes from the running node; clients use this
     * endpoint for {@code info()} and {@code ping()}.
     */
    public static final class RootInfoPlugin extends Plugin implements ActionPlugin {

        private volatile ClusterService clusterService;

        @Override
        public Collection<?> createComponents(PluginServices services) {
            clusterService = services.clusterService();
            return List.of();
        }

        @Override
        public Collection<RestHandler> getRestHandlers(
            Settings settings,
            NamedWriteableRegistry namedWriteableRegistry,
            RestController restController,
            ClusterSettings clusterSettings,
            IndexScopedSettings indexScopedSettings,
            SettingsFilter settingsFilter,
            IndexNameExpressionResolver indexNameExpressionResolver,
            Supplier<DiscoveryNodes> nodesInCluster,
            Predicate<NodeFeature> clusterSupportsFeature
        ) {
            return List.of(new BaseRestHandler() {
                @Override
                public String getName() {
                    return "simdup_root_info";
                }

                @Override
                public List<Route> routes() {
                    return List.of(new Route(RestRequest.Method.GET, "/"), new Route(RestRequest.Method.HEAD, "/"));
                }

                @Override
                protected RestChannelConsumer prepareRequest(RestRequest request, NodeClient client) {
                    return channel -> {
                        XContentBuilder body = channel.newBuilder();
                        writeInfo(body);
                        channel.sendResponse(new RestResponse(RestStatus.OK, body));
                    };
                }
            });
        }

        /** Writes the same fields, under the same names, as Elasticsearch's own root endpoint. */
        // Not private: this class and its handler are nestmates of EsNodeLauncher at compile time
        // but live in another class loader at run time, where private nestmate access fails.
        void writeInfo(XContentBuilder body) throws java.io.IOException {
            Build build = Build.current();
            var state = clusterService.state();
            body.startObject();
            body.field("name", clusterService.localNode().getName());
            body.field("cluster_name", clusterService.getClusterName().value());
            body.field("cluster_uuid", state.metadata().clusterUUID());
            body.startObject("version")
                .field("number", build.qualifiedVersion())
                .field("build_flavor", build.flavor())
                .field("build_type", build.type().displayName())
                .field("build_hash", build.hash())
                .field("build_date", build.date())
                .field("build_snapshot", build.isSnapshot())
                .field("lucene_version", IndexVersion.current().luceneVersion().toString())
                .field("minimum_wire_compatibility_version", build.minWireCompatVersion())
                .field("minimum_index_compatibility_version", build.minIndexCompatVersion())
                .endObject();
            body.field("tagline", "You Know, for Search");
            body.endObject();
        }
    }
}
