// Stub: model.Event's fields carry this annotation.
package javax.annotation;

public @interface Nullable {}
