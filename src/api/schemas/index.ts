/** Published request and response shapes, by area. The OpenAPI document is generated from these. */

export * from "./capacity";
export * from "./context";
export * from "./entities";
export * from "./events";
export * from "./facts";
export * from "./problems";
export * from "./threads";
export * from "./traces";
export * from "./vocabulary";
