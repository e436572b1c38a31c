"""The Discord front-end: app commands, lobbies, restart-safe components, the game port.

`bot.discord.app.run(config)` runs the bot; see docs/discord.md for the setup.
"""
