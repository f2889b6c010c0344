// Renders chat templates with the real @huggingface/jinja (the engine of transformers.js), the
// oracle of the huggingface.js part of chat-template-portability's tests.
// stdin: JSON [{"source": TEMPLATE, "chats": [KWARGS, ...]}, ...]
// stdout: JSON [{"error": MESSAGE} | {"renders": [{"text": T} | {"error": MESSAGE}, ...]}, ...]
import { Template } from "@huggingface/jinja";

let input = "";
for await (const chunk of process.stdin) input += chunk;
const out = JSON.parse(input).map(({ source, chats }) => {
	let template;
	try {
		template = new Template(source); // as transformers.js: lstrip_blocks and trim_blocks
	} catch (e) {
		return { error: String(e) };
	}
	return {
		renders: chats.map((chat) => {
			try {
				return { text: template.render(chat) };
			} catch (e) {
				return { error: String(e) };
			}
		}),
	};
});
process.stdout.write(JSON.stringify(out));
