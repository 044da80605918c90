package io.tributary;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The layering docs/ARCHITECTURE.md draws, checked against the compiled classes of whichever build runs it (the
 * server's, and each function's, so the Lambda sources are checked by their own builds). Habit kept the core free of
 * the frameworks until now; these rules make the build refuse the first import that breaks it.
 */
class ArchitectureTest {
    /**
     * The core: the table format, decoding, the ingestion and backfill logic and the retry policy they share, runnable
     * in any host.
     */
    static final String[] CORE = {"io.tributary.schema..", "io.tributary.delta..", "io.tributary.ingest..",
            "io.tributary.backfill..", "io.tributary.maintenance..", "io.tributary.retry..", "io.tributary.logs..",
            "io.tributary.online..", "io.tributary.features.."};
    /** The services both runtimes share: the registry and access control. */
    static final String[] SERVICES = {"io.tributary.registry..", "io.tributary.security..", "io.tributary.config.."};
    /** The runtime adapters: HTTP resources, the server's pipelines, the Lambda handlers. */
    static final String[] ADAPTERS = {"io.tributary.api..", "io.tributary.server..", "io.tributary.lambda.."};
    /** The frameworks a host brings; the core may use none of them. */
    static final String[] FRAMEWORKS = {"io.quarkus..", "jakarta..", "io.vertx..", "io.smallrye..", "org.hibernate..",
            "org.eclipse.microprofile..", "com.amazonaws.services.lambda..", "io.netty.."};
    /** The one package allowed to reach into Delta Kernel's internal classes. */
    static final String KERNEL_DOOR = "io.tributary.delta.kernel..";

    static JavaClasses classes;

    @BeforeAll
    static void importClasses() {
        classes = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS)
                .importPackages("io.tributary");
    }

    @Test
    void theCoreImportsNoFramework() {
        check(noClasses().that().resideInAnyPackage(CORE)
                .should().dependOnClassesThat().resideInAnyPackage(FRAMEWORKS)
                .because("the core runs unchanged in the server, in a Lambda function and in a test without a container"));
    }

    @Test
    void arrowsPointFromAdaptersToServicesToCore() {
        check(layeredArchitecture().consideringOnlyDependenciesInLayers()
                .layer("Core").definedBy(CORE)
                .layer("Services").definedBy(SERVICES)
                .layer("Adapters").definedBy(ADAPTERS)
                .whereLayer("Adapters").mayNotBeAccessedByAnyLayer()
                .whereLayer("Services").mayOnlyBeAccessedByLayers("Adapters")
                .whereLayer("Core").mayOnlyBeAccessedByLayers("Services", "Adapters")
                .withOptionalLayers(true));
    }

    @Test
    void insideTheCoreDecodingAndTheTableFormatKnowNothingOfIngestion() {
        check(noClasses().that().resideInAnyPackage("io.tributary.schema..", "io.tributary.delta..")
                .should().dependOnClassesThat().resideInAnyPackage(
                        "io.tributary.ingest..", "io.tributary.backfill..", "io.tributary.maintenance..")
                .allowEmptyShould(true));
        check(noClasses().that().resideInAPackage("io.tributary.schema..")
                .should().dependOnClassesThat().resideInAPackage("io.tributary.delta..")
                .allowEmptyShould(true));
        check(noClasses().that().resideInAPackage("io.tributary.retry..")
                .should().dependOnClassesThat().resideInAnyPackage("io.tributary.schema..", "io.tributary.delta..",
                        "io.tributary.ingest..", "io.tributary.backfill..", "io.tributary.maintenance..")
                .allowEmptyShould(true)
                .because("the retry policy is a leaf every room may use"));
    }

    @Test
    void onlyOnePackageReachesIntoKernelInternals() {
        check(noClasses().that(not(resideInAPackage(KERNEL_DOOR))).and().resideInAPackage("io.tributary..")
                .should().dependOnClassesThat().resideInAPackage("io.delta.kernel.internal..")
                .because("Kernel's internal classes change without notice; one package adapts to them"));
    }

    @Test
    void noCyclesBetweenRooms() {
        check(slices().matching("io.tributary.(*)..").should().beFreeOfCycles());
    }

    private static void check(ArchRule rule) {
        rule.allowEmptyShould(true).check(classes);
    }
}
