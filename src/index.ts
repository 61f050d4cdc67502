import { createApp } from "./app";

export { ThreadObject } from "./thread/thread-object";

export default createApp();
