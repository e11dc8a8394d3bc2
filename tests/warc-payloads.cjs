// warc-payloads.cjs WARCIO_DIR FILE... — reads WARC files with warcio's
// own parser (WARCParser) and prints one line per response record: its
// target URI, the SHA-1 (hex) of its payload as warcio reads it (the block
// after the HTTP head, not decoded), and the payload's length.  For
// tests/test-warc-reader.sh, which compares them with the files it wrote.
'use strict';
const fs = require('fs');
const crypto = require('crypto');
const { WARCParser } = require(process.argv[2]);

async function main() {
	for (const file of process.argv.slice(3)) {
		const parser = new WARCParser(fs.createReadStream(file));
		for await (const record of parser) {
			if (record.warcType !== 'response')
				continue;
			const body = await record.readFully(false);
			const sha1 = crypto.createHash('sha1').update(body);
			console.log([record.warcTargetURI, sha1.digest('hex'),
				body.length].join('\t'));
		}
	}
}

main().catch((e) => {
	console.error(e);
	process.exit(1);
});
