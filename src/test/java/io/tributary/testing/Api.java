package io.tributary.testing;

import static io.restassured.RestAssured.given;

import io.restassured.http.ContentType;
import io.restassured.specification.RequestSpecification;

/** RestAssured requests as one of the test principals (tokens in application.properties' %test profile). */
public final class Api {
    public static final String ALICE = "alice-token";
    public static final String BOB = "bob-token";
    public static final String CAROL = "carol-token";
    public static final String ROOT = "root-token";

    private Api() {}

    public static RequestSpecification as(String token) {
        return given().header("Authorization", "Bearer " + token).contentType(ContentType.JSON);
    }

    public static RequestSpecification anonymous() {
        return given().contentType(ContentType.JSON);
    }

    /** A name unique in this JVM, since all test classes share one database. */
    public static String unique(String prefix) {
        return prefix + "_" + Long.toString(System.nanoTime(), 36);
    }
}
