package io.tributary.testing;

import io.restassured.RestAssured;
import io.restassured.http.ContentType;
import io.restassured.specification.RequestSpecification;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * RestAssured requests as one of the test principals (tokens in application.properties' %test profile). In the
 * stream-api function build ({@code -Dfunction=stream-api}) the same requests travel as API Gateway events through
 * the Lambda HTTP path ({@link ApiGatewayHttpApi}), so every test written with these runs against both.
 */
public final class Api {
    public static final String ALICE = "alice-token";
    public static final String BOB = "bob-token";
    public static final String CAROL = "carol-token";
    public static final String ROOT = "root-token";

    /** Surefire sets it in function builds (pom.xml, lambda profile). */
    public static final boolean THROUGH_LAMBDA = "stream-api".equals(System.getProperty("function"));

    private Api() {}

    public static RequestSpecification as(String token) {
        return given().header("Authorization", "Bearer " + token).contentType(ContentType.JSON);
    }

    public static RequestSpecification anonymous() {
        return given().contentType(ContentType.JSON);
    }

    private static RequestSpecification given() {
        RequestSpecification request = RestAssured.given();
        if (THROUGH_LAMBDA) {
            request.filter(new ApiGatewayHttpApi(
                    ConfigProvider.getConfig().getValue("tributary.auth.tokens", String.class)));
        }
        return request;
    }

    /** A name unique in this JVM, since all test classes share one database. */
    public static String unique(String prefix) {
        return prefix + "_" + Long.toString(System.nanoTime(), 36);
    }
}
